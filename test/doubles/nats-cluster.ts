import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort, natsServerPath } from './nats-server.js';
import { reapOnExit } from './reap.js';

/** One server of the cluster: its client URL, and whether it still runs. */
export interface ClusterMember {
  name: string;
  url: string;
  process: ChildProcess;
  /** Kills it with SIGKILL (what a crashed machine looks like to the others). */
  kill(): Promise<void>;
}

/** A JetStream cluster of real nats-servers of the test's own, on free loopback ports with temporary store dirs. */
export interface NatsClusterUnderTest {
  members: ClusterMember[];
  /** Every client URL, for a connection that survives any one server. */
  urls: string[];
  close(): Promise<void>;
}

function untilExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );
}

/**
 * Starts `size` nats-servers (JetStream on, routes between all of them) and resolves once
 * JetStream answers through the cluster, so streams with `size` replicas can be created.
 */
export async function startNatsCluster(size = 3): Promise<NatsClusterUnderTest> {
  const path = natsServerPath();
  if (!path) throw new Error('nats-server is not installed (.ci/run installs it)');
  const storeRoot = mkdtempSync(join(tmpdir(), 'svc-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size * 2 }, freePort));
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const routes = routePorts.map((port) => `nats-route://127.0.0.1:${port}`).join(',');
  const members: ClusterMember[] = clientPorts.map((port, i) => {
    const name = `n${i + 1}`;
    const child = spawn(
      path,
      [
        '-a',
        '127.0.0.1',
        '-p',
        String(port),
        '-n',
        name,
        '-js',
        '-sd',
        join(storeRoot, name),
        '--cluster_name',
        'svc-test',
        '--cluster',
        `nats://127.0.0.1:${routePorts[i]}`,
        '--routes',
        routes,
      ],
      {
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    reapOnExit(child);
    return {
      name,
      url: `nats://127.0.0.1:${port}`,
      process: child,
      kill: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await untilExit(child);
      },
    };
  });
  const urls = members.map((member) => member.url);
  const close = async () => {
    await Promise.all(members.map((member) => member.kill()));
    rmSync(storeRoot, { recursive: true, force: true });
  };
  try {
    await waitForJetStream(urls, size);
  } catch (err) {
    await close();
    throw err;
  }
  return { members, urls, close };
}

/** Polls until the cluster has elected its JetStream meta leader and all `size` peers are current. */
async function waitForJetStream(urls: string[], size: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const nc = await connect({ servers: urls, timeout: 1_000 });
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2_000 });
        const probe = `probe_${Date.now()}`;
        // A stream with `size` replicas is created only once every peer takes part.
        await jsm.streams.add({ name: probe, subjects: [`${probe}.>`], num_replicas: size });
        await jsm.streams.delete(probe);
        return;
      } finally {
        await nc.close();
      }
    } catch (err) {
      last = err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the NATS cluster did not become ready: ${String(last)}`);
}
