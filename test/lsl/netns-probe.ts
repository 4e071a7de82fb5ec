/**
 * Run by netns.test.ts inside a network namespace of its own (loopback, and a veth interface d0
 * at 10.9.9.1/24): what an LSL outlet shows beyond loopback, by default and opened on d0. Prints one
 * JSON object. argv: the lsltool path and liblsl's path.
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { lslNow } from '../../src/lsl/clock.js';
import { LOOPBACK_NETWORK } from '../../src/lsl/network.js';
import { LslOutlet } from '../../src/lsl/outlet.js';
import { scratchDir } from '../support/scratch.js';

const [tool = '', library = ''] = process.argv.slice(2);
const D0 = '10.9.9.1';

function outlet(name: string, interfaces: string[]): LslOutlet {
  return new LslOutlet({
    name,
    type: 'EEG',
    sourceId: name,
    channelFormat: 'float32',
    nominalSrate: 100,
    channels: [{ label: 'C1' }],
    chunkSize: 0,
    maxBufferedSamples: 1000,
    network: { ...LOOPBACK_NETWORK, interfaces },
  });
}

/** Queries from d0's address to `target`; true when an outlet answered within 500 ms. */
async function answered(target: string): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, D0, resolve));
  socket.setBroadcast(true);
  socket.setMulticastInterface(D0);
  const got = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      resolve(false);
    }, 500);
    socket.once('message', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  socket.send(`LSL:shortinfo\r\n\r\n${socket.address().port} 77\r\n`, 16571, target);
  const result = await got;
  socket.close();
  return result;
}

async function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, D0);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** A liblsl inlet that may discover only through `addresses`: did it read samples? */
async function liblslReads(name: string, addresses: string): Promise<boolean> {
  const home = scratchDir('headsetd-lsl-ns');
  const file = path.join(home, 'lsl.cfg');
  writeFileSync(
    file,
    `[ports]\nIPv6 = disable\n[multicast]\nResolveScope = link\nMachineAddresses = {}\nLinkAddresses = {${addresses}}\n`,
  );
  const child = spawn(tool, [library, 'inlet', 'name', name, '5', '5'], {
    env: { ...process.env, HOME: home, LSLAPICFG: file },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  return out.includes('DONE');
}

const result: Record<string, boolean> = {};
const hidden = outlet('Hidden', []);
await hidden.start();
result.hiddenBroadcast = await answered('10.9.9.255');
result.hiddenMulticast = await answered('239.255.172.215');
result.hiddenUnicast = await answered(D0);
result.hiddenTcp = await tcpOpen(hidden.streamInfo?.v4dataPort ?? 0);
await hidden.stop();

const open = outlet('Open', ['d0']);
await open.start();
const pusher = setInterval(() => {
  const t = lslNow();
  open.push([1], [t]);
}, 10);
result.openBroadcast = await answered('10.9.9.255');
result.openMulticast = await answered('239.255.172.215');
result.openTcp = await tcpOpen(open.streamInfo?.v4dataPort ?? 0);
result.liblslBroadcast = await liblslReads('Open', '255.255.255.255');
result.liblslMulticast = await liblslReads('Open', '239.255.172.215');
clearInterval(pusher);
await open.stop();
process.stdout.write(`${JSON.stringify(result)}\n`);
