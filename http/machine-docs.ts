// docs/machines.md, made from the machine definitions themselves so the diagrams and state
// tables never drift from the code: `npm run docs:machines` writes it (test/tools/write-machine-docs.ts)
// and test/machine-docs.test.ts fails when it is out of date.
import type { AnyStateMachine } from 'xstate';
import { completionMachine } from '../actors/chat/completion-machine.js';
import { realtimeCallMachine } from '../actors/realtime/call-machine.js';
import { sessionMachine } from '../actors/sessions/session-machine.js';
import { uploadMachine } from '../actors/uploads/upload-machine.js';
import { subscriptionMachine } from '../actors/payments/subscription-machine.js';
import { VIDEO_JOB_MACHINE, videoJobMachine } from '../actors/video/video-job-machine.js';
import { VIDEO_NODE_MACHINE, videoNodeMachine } from '../actors/video/video-node-machine.js';
import { ORDER_MACHINE, orderMachine } from '../actors/marketplace/order-machine.js';
import { BACKGROUND_RESPONSE_MACHINE, backgroundResponseMachine } from '../actors/responses/background-machine.js';
import { machineDefinition, toMarkdown } from '../runtime/host/machine-diagram.js';

/** Every machine the service runs, by the name it is hosted (and inspected) under. */
export const DOCUMENTED_MACHINES: readonly [string, AnyStateMachine][] = [
  ['chat-session', sessionMachine],
  ['chat-completion', completionMachine],
  ['realtime-call', realtimeCallMachine],
  ['file-upload', uploadMachine],
  ['account-subscription', subscriptionMachine],
  [VIDEO_JOB_MACHINE, videoJobMachine],
  [VIDEO_NODE_MACHINE, videoNodeMachine],
  [ORDER_MACHINE, orderMachine],
  [BACKGROUND_RESPONSE_MACHINE, backgroundResponseMachine],
];

/** The whole of docs/machines.md. */
export function machineDocs(): string {
  const intro = [
    '# State machines',
    '',
    '[← README](../README.md) · [architecture](architecture.md)',
    '',
    'Generated from the machine definitions by `npm run docs:machines` (from `http/machine-docs.ts`); do not edit by',
    'hand: `test/machine-docs.test.ts` fails when this page and the code disagree. Each machine has its diagram',
    '(Mermaid), its states (and the effect each state runs) and every transition with its guard and actions.',
    '`done: x` / `error: x` are the ends of the effect `x` a state runs; `TIMER` events come from deadlines the',
    'machine keeps in its context (the actor host arms them on the clock).',
    '',
  ].join('\n');
  return `${intro}\n${DOCUMENTED_MACHINES.map(([name, machine]) => toMarkdown(name, machineDefinition(machine))).join('\n')}`;
}
