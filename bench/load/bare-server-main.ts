// Child-process entry for a baseline server: `node --import tsx bench/load/bare-server-main.ts`
// with BENCH_BARE (JSON BareServerOptions) in the environment; prints `bare listening on N`.
import { startBareServer, type BareServerOptions } from './bare-servers.js';

const options = JSON.parse(process.env.BENCH_BARE ?? '{"kind":"uws-json"}') as BareServerOptions;
const server = await startBareServer(options, process.env.HOST ?? '127.0.0.1');
process.stdout.write(`bare listening on ${server.port}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
