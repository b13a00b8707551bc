import type { FuzzFixtures } from './fuzz-fixtures.js';
import type { Labelled } from './hostile-values.js';
import type { Rng } from './prng.js';

/** The route's auth mode as http/route.ts names it. */
export type AuthModeName = 'public' | 'token' | 'session' | 'account' | 'admin';

/** An Authorization header value (undefined: none sent) with what it is, never the secret itself. */
export type AuthChoice = Labelled<string | undefined>;

/** The credential the route wants, for the primary account, so its handler is really reached. */
function rightCredential(rng: Rng, mode: AuthModeName, fx: FuzzFixtures): AuthChoice {
  switch (mode) {
    case 'public':
      return { value: undefined, label: 'none (public route)' };
    case 'token':
      return { value: `Bearer ${fx.primary.token}`, label: 'primary API token' };
    case 'session':
      return { value: `Bearer ${fx.primary.session}`, label: 'primary session token' };
    case 'account':
      return rng.chance(0.5)
        ? { value: `Bearer ${fx.primary.token}`, label: 'primary API token' }
        : { value: `Bearer ${fx.primary.session}`, label: 'primary session token' };
    case 'admin':
      return { value: `Bearer ${fx.adminKey}`, label: 'admin key' };
  }
}

/** Missing, malformed, someone else's, the wrong kind, disabled or very long credentials. */
function hostileCredential(rng: Rng, fx: FuzzFixtures): AuthChoice {
  return rng.weighted<() => AuthChoice>([
    [3, () => ({ value: undefined, label: 'no Authorization header' })],
    [3, () => ({ value: `Bearer ${fx.other.token}`, label: "another account's API token" })],
    [2, () => ({ value: `Bearer ${fx.other.session}`, label: "another account's session token" })],
    [2, () => ({ value: `Bearer ${fx.primary.session}`, label: 'session token (maybe where an API token is needed)' })],
    [2, () => ({ value: `Bearer ${fx.primary.token}`, label: 'API token (maybe where a session is needed)' })],
    [2, () => ({ value: `Bearer ${fx.adminKey}`, label: 'admin key (maybe on a non-admin route)' })],
    [
      2,
      () => ({ value: `Bearer ${fx.spareToken.value}`, label: 'spare API token (may be disabled or deleted by now)' }),
    ],
    [1, () => ({ value: `Bearer ${fx.spareSessions[0]}`, label: 'spare session (may be logged out by now)' })],
    [2, () => ({ value: `Bearer sk-svc-${rng.chars(rng.int(1, 60))}`, label: 'well-formed unknown API token' })],
    [1, () => ({ value: `Bearer ${rng.chars(rng.pick([513, 2000, 6000, 20000]))}`, label: 'very long token' })],
    [1, () => ({ value: `Bearer sk-svc-${rng.chars(rng.pick([600, 5000]))}`, label: 'very long sk-svc- token' })],
    [
      3,
      () => ({
        value: rng.pick([
          'Bearer',
          'Bearer ',
          'bearer  ',
          'Basic dXNlcjpwYXNz',
          `Token ${fx.primary.token}`,
          `${fx.primary.token}`,
          `Bearer ${fx.primary.token} extra`,
          `Bearer  \t${fx.primary.token}\t `,
          `BEARER ${fx.primary.token}`,
          `Bearer ${fx.primary.token.slice(0, -1)}`,
          `Bearer ${fx.primary.token}x`,
          `Bearer ${fx.adminKey.toUpperCase()}`,
          'Bearer null',
          'Bearer undefined',
          'Bearer __proto__',
          'Bearer sk-svc-',
          'Bearer \u00ff\u00fe',
          '',
        ]),
        label: 'malformed Authorization header',
      }),
    ],
  ])();
}

/** Mostly the right credential (so validation behind the perimeter is exercised), sometimes a hostile one. */
export function chooseAuth(rng: Rng, mode: AuthModeName, fx: FuzzFixtures, rightChance?: number): AuthChoice {
  const right = rightChance ?? (mode === 'public' ? 0.6 : 0.8);
  return rng.chance(right) ? rightCredential(rng, mode, fx) : hostileCredential(rng, fx);
}
