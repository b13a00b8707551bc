import {
  CUSTOM_TIER,
  planDefinition,
  TIER_IDS,
  TIER_LADDER,
  tierDefinition,
  type TierDefinition,
  type TierId,
} from '../../protocols/payments.js';
import type { AccountRecord } from './account-repo.js';

/** The operator's tier choice for an account: the ladder (`auto`), no tier caps (`custom`) or a fixed rung. */
export type TierChoice = 'auto' | typeof CUSTOM_TIER | TierId;

/** The caps a tier puts on a whole account. */
export interface TierLimits {
  requestsPerMinute: number;
  maxConcurrentRequests: number;
}

/** An account's tier now, and why. */
export interface EffectiveTier {
  id: TierId | typeof CUSTOM_TIER;
  source: 'ladder' | 'plan' | 'operator';
  /** Null for `custom`: no tier caps. */
  limits: TierLimits | null;
  paidMicros: number;
  ageDays: number;
  /** The rung the ladder alone gives (what `next` climbs from). */
  ladder: TierDefinition;
}

const DAY_MS = 86_400_000;

const rank = (id: TierId) => TIER_IDS.indexOf(id);
const limitsOf = (tier: TierDefinition): TierLimits => ({
  requestsPerMinute: tier.requestsPerMinute,
  maxConcurrentRequests: tier.maxConcurrentRequests,
});

/** The highest rung whose requirements `paidMicros` and `ageDays` meet. */
export function ladderTier(paidMicros: number, ageDays: number): TierDefinition {
  let reached = TIER_LADDER[0]!;
  for (const tier of TIER_LADDER)
    if (paidMicros >= tier.minPaidMicros && ageDays >= tier.minAccountAgeDays) reached = tier;
  return reached;
}

/**
 * The account's tier at `now` (pure): the operator's choice when set; otherwise the ladder (paid
 * top-ups and account age), raised to a live plan's floor. A plan counts until its paid period ends.
 */
export function effectiveTier(account: AccountRecord, now: number): EffectiveTier {
  const paidMicros = account.paidMicros ?? 0;
  const ageDays = Math.max(0, Math.floor((now - account.createdAt) / DAY_MS));
  const ladder = ladderTier(paidMicros, ageDays);
  const base = { paidMicros, ageDays, ladder };
  const choice = account.tier ?? 'auto';
  if (choice === CUSTOM_TIER) return { ...base, id: CUSTOM_TIER, source: 'operator', limits: null };
  if (choice !== 'auto') return { ...base, id: choice, source: 'operator', limits: limitsOf(tierDefinition(choice)) };
  const plan = account.plan && account.plan.until > now ? planDefinition(account.plan.id) : undefined;
  if (plan && rank(plan.tierFloor) > rank(ladder.id)) {
    const floor = tierDefinition(plan.tierFloor);
    return { ...base, id: floor.id, source: 'plan', limits: limitsOf(floor) };
  }
  return { ...base, id: ladder.id, source: 'ladder', limits: limitsOf(ladder) };
}

/** The rung above what the ladder gives, with what is still missing; null at the top or outside the ladder. */
export function nextTier(
  tier: EffectiveTier,
): { tier: TierDefinition; missingMicros: number; missingDays: number } | null {
  if (tier.id === CUSTOM_TIER || tier.source === 'operator') return null;
  const current = tier.source === 'plan' ? tierDefinition(tier.id) : tier.ladder;
  const next = TIER_LADDER[rank(current.id) + 1];
  if (!next) return null;
  return {
    tier: next,
    missingMicros: Math.max(0, next.minPaidMicros - tier.paidMicros),
    missingDays: Math.max(0, next.minAccountAgeDays - tier.ageDays),
  };
}
