import { ApiError } from '../../protocols/errors.js';
import type { CreateTokenRequest, PatchTokenRequest } from '../../protocols/account.js';
import type { AccountServices } from './account-services.js';
import type { TokenRecord } from './token-repo.js';

/** A token just created: its record and its value, which is shown this once and stored only hashed. */
export interface CreatedToken {
  record: TokenRecord;
  value: string;
}

/** An account's API tokens: list, create, change, delete. Another account's token is a 404. */
export class TokenService {
  constructor(private readonly services: AccountServices) {}

  /** Every token of the account, oldest first. */
  list(accountId: string): TokenRecord[] {
    return this.services.tokens.list(accountId);
  }

  /** Creates a token for the account. */
  create(accountId: string, request: CreateTokenRequest): Promise<CreatedToken> {
    return this.services.tokens.create({
      accountId,
      label: request.label,
      requestsPerMinute: request.requests_per_minute,
    });
  }

  /** Changes the fields present in `request`. */
  async update(accountId: string, tokenId: string, request: PatchTokenRequest): Promise<TokenRecord> {
    const updated = await this.services.tokens.update(accountId, tokenId, {
      ...(request.label !== undefined && { label: request.label }),
      ...(request.requests_per_minute !== undefined && { requestsPerMinute: request.requests_per_minute }),
      ...(request.enabled !== undefined && { enabled: request.enabled }),
    });
    if (!updated) throw notFound(tokenId);
    return updated;
  }

  /** Deletes the token for good and forgets its rate-limit bucket. */
  async delete(accountId: string, tokenId: string): Promise<void> {
    if (!(await this.services.tokens.delete(accountId, tokenId))) throw notFound(tokenId);
    this.services.rateLimiter.forget(tokenId);
  }
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No API token with id ${id}.`, { param: 'token' });
}
