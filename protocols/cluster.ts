import { z } from 'zod';

/** One node of the cluster as GET /admin/v1/cluster shows it. */
export const ClusterNodeViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  epoch: z.string(),
  state: z.enum(['joining', 'up', 'draining', 'down']),
  /** Whether its fence still names this incarnation (false: another node fenced it). */
  fenced: z.boolean(),
  started_at: z.number().int(),
  /** How long ago the answering node last heard this node's heartbeat (null: not since it started). */
  heard_ms_ago: z.number().int().nullable(),
  /** Accounts whose home is this node (their requests are served there). */
  accounts: z.number().int(),
  /** Unfinished actors of those accounts (at most `actors_limit` listed). */
  actors: z.array(z.object({ id: z.string(), machine: z.string(), owner_id: z.string() })),
  actor_count: z.number().int(),
});

/** GET /admin/v1/cluster: the nodes, their leases and what each owns; `mode: single` without NATS. */
export const ClusterObjectSchema = z.object({
  object: z.literal('cluster'),
  mode: z.enum(['single', 'cluster']),
  /** The node that answered. */
  node: z.string().nullable(),
  lease_ms: z.number().int().nullable(),
  /** How far this node has applied the replicated log. */
  applied_seq: z.number().int().nullable(),
  /** The log now: the first entry it still holds (it is trimmed behind snapshots), its last, and the newest snapshot's position. */
  log: z
    .object({ first_seq: z.number().int(), last_seq: z.number().int(), snapshot_seq: z.number().int().nullable() })
    .nullable(),
  nodes: z.array(ClusterNodeViewSchema),
  /** Unfinished actors whose account has no live home right now (taken over on the next sweep or request). */
  orphaned_actors: z.number().int(),
});
export type ClusterObject = z.infer<typeof ClusterObjectSchema>;
