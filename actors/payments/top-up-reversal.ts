// What a paid top-up has lost to refunds and disputes, as a pure function of the facts recorded
// about it: the money taken back is always the target those facts give, so the provider's
// delivery order cannot change where the balance ends.

/** Where a dispute stands; `won` and `lost` are final. */
export type DisputeStatus = 'opened' | 'won' | 'lost';

/** A dispute of a paid top-up as recorded: the largest amount seen and where it stands. */
export interface TopUpDispute {
  amountMicros: number;
  status: DisputeStatus;
}

/** What one refund or dispute event says about a top-up. */
export type ReversalFact =
  | { kind: 'refund'; refundedMicros: number }
  | { kind: 'dispute'; disputeId: string; amountMicros: number; status: DisputeStatus };

/** A top-up's reversal facts and what has been taken back for them so far. */
export interface ReversalState {
  /** What the top-up credited. */
  creditedMicros: number;
  /** The highest cumulative refund seen, never past what was credited. */
  refundedMicros: number;
  /** Each dispute by the provider's id. */
  disputes: Record<string, TopUpDispute>;
  /** What has been taken back so far (refunds and disputes together). */
  reversedMicros: number;
}

/** A top-up's reversal facts as stored, records written before dispute statuses included. */
export interface StoredReversalFacts {
  amountMicros: number;
  refundedMicros?: number;
  /** A bare number is the earlier shape: what the dispute took (above 0: opened), 0 once won. */
  disputes?: Record<string, TopUpDispute | number>;
  reversedMicros?: number;
}

type ReversalFacts = Omit<ReversalState, 'reversedMicros'>;

function disputeOf(disputes: Record<string, TopUpDispute>, id: string): TopUpDispute | undefined {
  return Object.hasOwn(disputes, id) ? disputes[id] : undefined;
}

/** What the facts take back: the refund plus every opened or lost dispute, never past what was credited. */
export function reversalTarget(facts: ReversalFacts): number {
  let owed = facts.refundedMicros;
  for (const dispute of Object.values(facts.disputes)) if (dispute.status !== 'won') owed += dispute.amountMicros;
  return Math.min(facts.creditedMicros, owed);
}

function withFact(facts: ReversalFacts, fact: ReversalFact): ReversalFacts {
  const credited = facts.creditedMicros;
  if (fact.kind === 'refund')
    return { ...facts, refundedMicros: Math.max(facts.refundedMicros, Math.min(fact.refundedMicros, credited)) };
  const known = disputeOf(facts.disputes, fact.disputeId);
  // A closed dispute stays closed: a late or redelivered `opened` does not reopen it.
  const status = known && known.status !== 'opened' ? known.status : fact.status;
  const amountMicros = Math.min(credited, Math.max(known?.amountMicros ?? 0, fact.amountMicros));
  return { ...facts, disputes: { ...facts.disputes, [fact.disputeId]: { amountMicros, status } } };
}

/**
 * Applies one fact: the next state and the micro-USD to move now (positive: taken back;
 * negative: given back), which is the new target less what was already taken back.
 */
export function applyReversalFact(state: ReversalState, fact: ReversalFact): { state: ReversalState; micros: number } {
  const facts = withFact(state, fact);
  const target = reversalTarget(facts);
  return { state: { ...facts, reversedMicros: target }, micros: target - state.reversedMicros };
}

/** Reads a stored top-up's reversal state, normalising records written before dispute statuses. */
export function readReversalState(record: StoredReversalFacts): ReversalState {
  const disputes = Object.fromEntries(
    Object.entries(record.disputes ?? {}).map(([id, value]): [string, TopUpDispute] => [
      id,
      typeof value !== 'number'
        ? value
        : value > 0
          ? { amountMicros: value, status: 'opened' }
          : { amountMicros: 0, status: 'won' },
    ]),
  );
  const facts: ReversalFacts = {
    creditedMicros: record.amountMicros,
    refundedMicros: Math.min(record.refundedMicros ?? 0, record.amountMicros),
    disputes,
  };
  return { ...facts, reversedMicros: record.reversedMicros ?? reversalTarget(facts) };
}
