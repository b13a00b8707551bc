import type { ChatMessage } from '../../protocols/chat.js';
import type { PassName } from './chat-plan.js';

/** Live input a client sent to a running completion (spec 2.4). */
export interface LiveInput {
  seq: number;
  content: unknown;
  questionId: string | null;
  source: string;
  modality: string;
  receivedAt: number;
  /** The pass that took it into its prompt; null while pending. */
  usedIn: PassName | null;
}

const INSTRUCTIONS: Record<Exclude<PassName, 'answer'>, string> = {
  plan: 'Internal planning pass: list the steps a complete answer to the conversation needs. Do not answer yet.',
  draft: 'Write the answer. Follow this plan:',
  check:
    'Internal completeness check: does the answer below cover every part of the request? Reply "complete" or list what is missing.',
  judge:
    'Internal verification pass: verify the answer below is correct and consistent with the conversation. Reply "verified" or list the errors.',
};

function liveInputMessages(inputs: readonly LiveInput[]): ChatMessage[] {
  return inputs.map((input) => ({
    role: 'user' as const,
    content: typeof input.content === 'string' ? input.content : JSON.stringify(input.content),
  }));
}

/**
 * The messages one pass sends to the backend for one choice: the conversation, the live input
 * received so far, and the pass's instruction with what earlier passes produced.
 */
export function passMessages(input: {
  pass: PassName;
  conversation: readonly ChatMessage[];
  liveInputs: readonly LiveInput[];
  planText: string;
  answerText: string;
}): ChatMessage[] {
  const base = [...input.conversation, ...liveInputMessages(input.liveInputs)];
  switch (input.pass) {
    case 'answer':
      return base;
    case 'plan':
      return [...base, { role: 'system', content: INSTRUCTIONS.plan }];
    case 'draft':
      return [...base, { role: 'system', content: `${INSTRUCTIONS.draft}\n${input.planText}` }];
    case 'check':
    case 'judge':
      return [
        ...base,
        { role: 'assistant', content: input.answerText },
        { role: 'system', content: INSTRUCTIONS[input.pass] },
      ];
  }
}
