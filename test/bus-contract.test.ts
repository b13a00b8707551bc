import { suite } from 'uvu';
import { LocalBus } from '../runtime/bus/local-bus.js';
import { NatsBus } from '../runtime/bus/nats-bus.js';
import { busContract } from './contracts/bus.js';
import { natsServerPath, startNatsServer, type NatsServerUnderTest } from './doubles/nats-server.js';

const local = suite('bus contract: LocalBus');
busContract(local, { open: () => Promise.resolve(new LocalBus()), settle: () => Promise.resolve() });
local.run();

// The same contract on a real nats-server of the test's own (skipped, saying so, where none is installed).
const nats = suite('bus contract: NatsBus on a real nats-server');
if (natsServerPath()) {
  let server: NatsServerUnderTest;
  nats.before(async () => {
    server = await startNatsServer();
  });
  nats.after(() => server.stop());
  busContract(nats, { open: () => NatsBus.connect([server.url]), settle: (bus) => (bus as NatsBus).flush() });
} else {
  nats.skip('nats-server is not installed: the NatsBus contract was not run', () => {});
}
nats.run();
