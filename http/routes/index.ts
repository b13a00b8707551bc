import type { AppDeps } from '../app.js';
import type { RouteDef } from '../route.js';
import { accountRoutes } from './account.js';
import { adminRoutes } from './admin.js';
import { authRoutes } from './auth.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { chatSessionRoutes } from './chat-sessions.js';
import { earlyAccessRoutes } from './early-access.js';
import { fileRoutes } from './files.js';
import { fileUploadRoutes } from './file-uploads.js';
import { healthRoutes } from './health.js';
import { modelRoutes } from './models.js';
import { pricingRoutes } from './pricing.js';
import { realtimeRoutes } from './realtime.js';
import { tokenRoutes } from './tokens.js';
import { usageRoutes } from './usage.js';

/** Every route of the API, one module per resource. */
export function allRoutes(deps: AppDeps): RouteDef[] {
  return [
    ...healthRoutes(deps),
    ...authRoutes(deps),
    ...accountRoutes(deps),
    ...tokenRoutes(deps),
    ...usageRoutes(deps),
    ...modelRoutes(deps),
    ...earlyAccessRoutes(deps),
    ...pricingRoutes(deps),
    ...chatCompletionRoutes(deps),
    ...chatSessionRoutes(deps),
    ...fileRoutes(deps),
    ...fileUploadRoutes(deps),
    ...realtimeRoutes(deps),
    ...adminRoutes(deps),
  ];
}
