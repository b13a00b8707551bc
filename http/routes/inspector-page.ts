import { ApiError } from '../../protocols/errors.js';
import type { StaticAsset } from '../../runtime/static-assets.js';
import type { AppDeps } from '../app-deps.js';
import type { RequestContext, RouteDef } from '../route.js';

// The page holds no data: everything it shows comes from /admin/v1 with the admin key the
// operator types in, so the page itself is public (but only there when the admin API is).
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

function serve(ctx: RequestContext, asset: StaticAsset | undefined, name: string): undefined {
  if (!asset) throw new ApiError('not_found', `No inspector file ${name.slice(0, 100)}.`, { param: 'file' });
  const headers = { ...PAGE_HEADERS, 'content-type': asset.contentType, etag: asset.etag };
  if (ctx.ex.headers['if-none-match'] === asset.etag) ctx.ex.send(304, headers, '');
  else ctx.ex.send(200, headers, asset.body);
  return undefined;
}

/** The statechart inspector at /inspector: a static page of plain ES modules; off without SVC_ADMIN_KEY. */
export function inspectorPageRoutes({ config, inspection: { assets } }: AppDeps): RouteDef[] {
  if (!config.SVC_ADMIN_KEY) return [];
  // The media types are those of the files read at start (HTML, the ES modules, the stylesheet); 304 answers If-None-Match.
  const page = assets.get('index.html');
  const files = [...new Set([...assets.values()].map((asset) => asset.contentType))];
  return [
    {
      method: 'GET',
      path: '/inspector',
      auth: 'public',
      schema: { summary: 'The statechart inspector page', media: page ? [page.contentType] : [], status: [200, 304] },
      handler: (ctx) => serve(ctx, page, 'index.html'),
    },
    {
      method: 'GET',
      path: '/inspector/:file',
      auth: 'public',
      schema: {
        summary: "One of the inspector page's files (its ES modules, stylesheet and layout library)",
        media: files,
        status: [200, 304],
      },
      handler: (ctx) => serve(ctx, assets.get(ctx.params.file!), ctx.params.file!),
    },
  ];
}
