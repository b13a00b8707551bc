import {
  BenchIdSchema,
  BenchmarkCatalogObjectSchema,
  BenchmarkDomainObjectSchema,
  BenchmarkLiveObjectSchema,
  BenchmarkParticipantsObjectSchema,
  BenchmarkPublicationObjectSchema,
} from '../../protocols/benchmarks.js';
import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** The public benchmark views, served only from a verified evidence package (503 otherwise). */
export function benchmarkRoutes({ benchmarks }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/benchmarks/live',
      auth: 'public',
      schema: { summary: 'Latest verified run of each rights-cleared benchmark', response: BenchmarkLiveObjectSchema },
      handler: async () => json(await benchmarks.live()),
    },
    {
      method: 'GET',
      path: '/v1/benchmarks/live-per-domain/:bench_id',
      auth: 'public',
      schema: { summary: "One benchmark's whole verified result", response: BenchmarkDomainObjectSchema },
      handler: async (ctx) => {
        const benchId = ctx.params.bench_id!;
        // An id no benchmark can have is a 404 like any unknown one, before the package is read.
        if (!BenchIdSchema.safeParse(benchId).success)
          throw new ApiError('not_found', `No published evidence for benchmark ${benchId}.`, { param: 'bench_id' });
        return json(await benchmarks.domain(benchId));
      },
    },
    {
      method: 'GET',
      path: '/v1/benchmarks/catalog',
      auth: 'public',
      schema: { summary: 'Rights-cleared benchmarks of the published package', response: BenchmarkCatalogObjectSchema },
      handler: async () => json(await benchmarks.catalog()),
    },
    {
      method: 'GET',
      path: '/v1/benchmarks/participants',
      auth: 'public',
      schema: { summary: 'Systems measured by the published benchmarks', response: BenchmarkParticipantsObjectSchema },
      handler: async () => json(await benchmarks.participants()),
    },
    {
      method: 'GET',
      path: '/v1/benchmarks/publication',
      auth: 'public',
      schema: {
        summary: 'The published evidence package: id, signature key, manifest digest',
        response: BenchmarkPublicationObjectSchema,
      },
      handler: async () => json(await benchmarks.publication()),
    },
  ];
}
