/**
 * The anchor of `cli.client-command`: bare Node doing what `headsetd streams list` does on the
 * wire, one GET with node:http, its JSON parsed and a line printed. `node bare-client.mjs URL`.
 */
import http from 'node:http';
import process from 'node:process';

http.get(process.argv[2], { headers: { accept: 'application/json' } }, (response) => {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (text += chunk));
  response.on('end', () => {
    process.stdout.write(`${JSON.stringify(JSON.parse(text))}\n`);
  });
});
