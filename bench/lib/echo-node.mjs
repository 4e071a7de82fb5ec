#!/usr/bin/env node
/* global process */
/** An external node that sends every frame back out unchanged: the external-hop benchmark's node. */
const { run } = await import(process.env.HEADSETD_SDK ?? 'headsetd/sdk');

run({
  inputs: ['in'],
  outputs: ['out'],
  onData(_port, frame, send) {
    send('out', frame);
  },
});
