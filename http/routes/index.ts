import type { AppDeps } from '../app-deps.js';
import type { RouteDef } from '../route.js';
import { accountRoutes } from './account.js';
import { accountSecurityRoutes } from './account-security.js';
import { adminRoutes } from './admin.js';
import { actorRoutes } from './actors.js';
import { inspectorPageRoutes } from './inspector-page.js';
import { metricsRoutes } from './metrics.js';
import { audioSoundEffectRoutes } from './audio-sound-effects.js';
import { audioSpeechRoutes } from './audio-speech.js';
import { audioTranscriptionRoutes } from './audio-transcriptions.js';
import { audioVoiceRoutes } from './audio-voices.js';
import { authRoutes } from './auth.js';
import { benchmarkRoutes } from './benchmarks.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { checkoutRoutes } from './checkout.js';
import { clusterRoutes } from './cluster.js';
import { chatSessionRoutes } from './chat-sessions.js';
import { earlyAccessRoutes } from './early-access.js';
import { fileRoutes } from './files.js';
import { fileUploadRoutes } from './file-uploads.js';
import { healthRoutes } from './health.js';
import { imageRoutes } from './images.js';
import { mcpRoutes } from './mcp.js';
import { mediaUrlRoutes } from './media-urls.js';
import { messagesRoutes } from './messages.js';
import { modelRoutes } from './models.js';
import { musicRoutes } from './music.js';
import { openApiRoutes } from './openapi.js';
import { pricingRoutes } from './pricing.js';
import { realtimeRoutes } from './realtime.js';
import { responseRoutes } from './responses.js';
import { subscriptionRoutes } from './subscription.js';
import { tokenRoutes } from './tokens.js';
import { usageRoutes } from './usage.js';
import { videoProjectRoutes } from './video-projects.js';
import { videoRoutes } from './videos.js';
import { waitlistRoutes } from './waitlist.js';
import { webhookRoutes } from './webhooks.js';

/** Every route of the API, one module per resource. */
export function allRoutes(deps: AppDeps): RouteDef[] {
  return [
    ...healthRoutes(deps),
    ...clusterRoutes(deps),
    ...authRoutes(deps),
    ...accountRoutes(deps),
    ...accountSecurityRoutes(deps),
    ...checkoutRoutes(deps),
    ...subscriptionRoutes(deps),
    ...webhookRoutes(deps),
    ...waitlistRoutes(deps),
    ...tokenRoutes(deps),
    ...usageRoutes(deps),
    ...modelRoutes(deps),
    ...earlyAccessRoutes(deps),
    ...pricingRoutes(deps),
    ...chatCompletionRoutes(deps),
    ...responseRoutes(deps),
    ...chatSessionRoutes(deps),
    ...messagesRoutes(deps),
    ...fileRoutes(deps),
    ...fileUploadRoutes(deps),
    ...realtimeRoutes(deps),
    ...imageRoutes(deps),
    ...videoRoutes(deps),
    ...videoProjectRoutes(deps),
    ...mediaUrlRoutes(deps),
    ...audioSpeechRoutes(deps),
    ...audioTranscriptionRoutes(deps),
    ...audioSoundEffectRoutes(deps),
    ...audioVoiceRoutes(deps),
    ...musicRoutes(deps),
    ...adminRoutes(deps),
    ...actorRoutes(deps),
    ...inspectorPageRoutes(deps),
    ...metricsRoutes(deps),
    ...openApiRoutes(deps),
    ...mcpRoutes(deps),
    ...benchmarkRoutes(deps),
  ];
}
