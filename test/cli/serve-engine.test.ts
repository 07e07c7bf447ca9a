import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { useMigratedDataDirs } from '../helpers/migrated-snapshot.ts';

const engineDir = useMigratedDataDirs('pw-engine-');

test('serve runs the scheduler with the configured concurrency and stops it on shutdown; api runs none', async () => {
  const dataDir = engineDir();
  const config = loadConfig({
    PORT: '0',
    PAGEWATCH_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PAGEWATCH_TICK_SECONDS: '1',
    PAGEWATCH_WORKER_CONCURRENCY: '2',
  });
  const server = await startServer(config);
  assert.ok(server.engine);
  assert.equal(server.engine.running, true);
  await server.stop();
  assert.equal(server.engine.running, false, 'no worker loop is left running');

  const api = await startServer(config, { engine: false });
  assert.equal(api.engine, null);
  await api.stop();
});
