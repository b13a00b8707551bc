import { suite } from 'uvu';
import { LocalBus } from '../runtime/bus/local-bus.js';
import { busContract } from './contracts/bus.js';

const local = suite('bus contract: LocalBus');
busContract(local, { open: () => Promise.resolve(new LocalBus()), settle: () => Promise.resolve() });
local.run();
