import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** Every scope the product tools know. */
export const ALL_SCOPES = 'pro1:invoke marketplace:read orders:read orders:write';

/** A certified OpenID provider (`oidc-provider`) on an ephemeral loopback port, issuing JWT access tokens by client credentials. */
export interface TestIssuer {
  issuer: string;
  /** An access token from the provider's token endpoint for `resource`, with `scope`, naming `account` in `svc_account`. */
  token(options: { account: string; scope?: string; resource?: string }): Promise<string>;
  /** A token signed with the provider's own key but with the claims given (for refusals the provider would not issue). */
  forge(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Starts the provider; `audience` is the resource indicator tokens are issued for by default. */
export async function startIssuer(audience: string): Promise<TestIssuer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'ES256', use: 'sig' };
  const CLIENT_ID = 'svc-test-agent';
  const CLIENT_SECRET = 'svc-test-agent-secret-0123456789abcdef';
  // The account the next token names (tokens are asked for one at a time).
  let account = '';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: ALL_SCOPES,
        token_endpoint_auth_method: 'client_secret_post',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk] },
    scopes: ALL_SCOPES.split(' '),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: ALL_SCOPES,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    extraTokenClaims: () => ({ svc_account: account }),
  });
  http.on('request', provider.callback());
  return {
    issuer,
    async token({ account: accountId, scope = ALL_SCOPES, resource }) {
      account = accountId;
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        scope,
        ...(resource && { resource }),
      });
      const res = await fetch(`${issuer}/token`, { method: 'POST', body });
      const json = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!json.access_token) throw new Error(`token endpoint: ${json.error}: ${json.error_description}`);
      return json.access_token;
    },
    forge: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'test-key-1', typ: 'at+jwt' }).sign(privateKey),
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
