/** A listing as stored: prices in integer micro-USD. */
export interface ListingRecord {
  id: string;
  title: string;
  seller: string;
  category: string;
  description: string;
  /** What one unit is (for example "pack", "hour"). */
  unit: string;
  unitPriceMicros: number;
  available: boolean;
}

/**
 * The listings the marketplace starts with, written to the store at boot when absent (an
 * operator's later changes to a stored listing are kept). The marketplace is in early access: a
 * small, fixed catalogue of offers by named sellers, enough for agents to browse, order, accept
 * and cancel end to end. Documented in docs/mcp.md; ids are stable so docs and tests can name them.
 */
export const LISTINGS_FIXTURE: readonly ListingRecord[] = [
  {
    id: 'lst_EvalPackLegal500Prmt',
    title: 'Evaluation pack: 500 graded legal-reasoning prompts',
    seller: 'Northwind Evals',
    category: 'datasets',
    description: 'Prompts with reference answers and a grading rubric, delivered as JSONL.',
    unit: 'pack',
    unitPriceMicros: 25_000_000,
    available: true,
  },
  {
    id: 'lst_PromptReviewHour0001',
    title: 'Prompt review by a human expert',
    seller: 'Fable & Quill Consulting',
    category: 'services',
    description: 'A reviewer reads your system prompt and ten transcripts and sends written findings.',
    unit: 'hour',
    unitPriceMicros: 90_000_000,
    available: true,
  },
  {
    id: 'lst_VoicePersonaStudio01',
    title: 'Voice persona design session',
    seller: 'Cedar Voice Studio',
    category: 'services',
    description: 'A voice designer tunes a premium voice and delivery instructions for your product.',
    unit: 'session',
    unitPriceMicros: 150_000_000,
    available: true,
  },
  {
    id: 'lst_RedTeamSprint0000001',
    title: 'Red-team sprint for an agent workflow',
    seller: 'Ashgrove Security',
    category: 'services',
    description: 'Three days of adversarial testing of one agent workflow, with a report.',
    unit: 'sprint',
    unitPriceMicros: 1_200_000_000,
    available: false,
  },
  {
    id: 'lst_SupportTriageTpl0001',
    title: 'Support triage prompt template',
    seller: 'Marin Labs',
    category: 'templates',
    description: 'A tested triage template with routing labels and twenty example tickets.',
    unit: 'licence',
    unitPriceMicros: 4_500_000,
    available: true,
  },
];
