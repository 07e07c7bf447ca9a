import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';
import { MigrationMismatchError, migrate } from '../store/migrate.ts';
import { sizeYoungGeneration } from '../heap-sizing.ts';

// Each command imports its modules when it runs: the server's (HTTP, engine,
// browser, PDF reader) took over half a second to load, which every command
// paid, `pagewatch admin` and `pagewatch restore` as much as `serve`.

const USAGE = `usage: pagewatch <command>

  serve     API, scheduler and workers in one process (embedded store unless DATABASE_URL is set)
  api       HTTP API only, for scale-out (PostgreSQL only)
  worker    scheduler and check workers only, for scale-out (PostgreSQL only)
  migrate   apply database migrations
  backup FILE    copy the embedded store, also while the server runs (through its operator API)
  restore FILE   a backup into an empty PAGEWATCH_DATA_DIR
  migrate-store --to URL   copy the embedded store into an empty PostgreSQL database, then compare them
  export FILE    an account's monitors as JSON (PAGEWATCH_URL, PAGEWATCH_TOKEN: the account's API token)
  import FILE    monitors from an export, a changedetection.io backup or a URL list, previewed and created through the API
  admin     operator tasks through a running server (pagewatch admin --help)
  openapi   print the OpenAPI document`;

/** The process entry point: the only place that reads process.env. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case 'serve': {
        const config = loadConfig(process.env);
        sizeYoungGeneration(config.youngGeneration);
        const { serveUntilSignalled } = await import('../server.ts');
        await serveUntilSignalled(config);
        return 0;
      }
      case 'api': {
        const config = loadConfig(process.env);
        sizeYoungGeneration(config.youngGeneration);
        requirePostgres(config, 'api');
        const { serveUntilSignalled } = await import('../server.ts');
        await serveUntilSignalled(config, { engine: false });
        return 0;
      }
      case 'worker': {
        const config = loadConfig(process.env);
        sizeYoungGeneration(config.youngGeneration);
        requirePostgres(config, 'worker');
        const { workUntilSignalled } = await import('../worker.ts');
        await workUntilSignalled(config);
        return 0;
      }
      case 'migrate': {
        const config = loadConfig(process.env);
        const { openDatabase } = await import('../store/open-database.ts');
        const db = await openDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          pgliteSharedBuffersMiB: config.pgliteSharedBuffersMiB,
          migrate: false,
        });
        const applied = await migrate(db).finally(() => db.close());
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
        return 0;
      }
      case 'admin':
        return await (await import('./admin-command.ts')).adminCommand(rest, process.env);
      case 'backup': {
        const config = loadConfig(process.env);
        return await (await import('./backup-command.ts')).backupCommand(rest[0], config, process.env);
      }
      case 'restore': {
        const config = loadConfig(process.env);
        return await (await import('./backup-command.ts')).restoreCommand(rest[0], config);
      }
      case 'export':
        return await (await import('./monitor-transfer-command.ts')).exportCommand(rest[0], apiOf(process.env));
      case 'import':
        return await (await import('./monitor-transfer-command.ts')).importCommand(rest[0], apiOf(process.env));
      case 'migrate-store': {
        const config = loadConfig(process.env);
        return await (await import('./migrate-store-command.ts')).migrateStoreCommand(rest, config);
      }
      case 'openapi': {
        const config = loadConfig(process.env);
        await (await import('./openapi-command.ts')).printOpenApi(config);
        return 0;
      }
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return 0;
      default:
        // No command, or an unknown one, is a usage error.
        console.error(command === undefined ? USAGE : `pagewatch: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) console.error(`pagewatch: configuration error: ${err.message}`);
    else if (err instanceof DataDirLockedError || err instanceof MigrationMismatchError) console.error(`pagewatch: ${err.message}`);
    else console.error(err);
    return 1;
  }
}

/** The public API an export or import talks to, with the account's token; null without one. */
function apiOf(env: NodeJS.ProcessEnv): { base: string; token: string } | null {
  return env.PAGEWATCH_TOKEN ? { base: env.PAGEWATCH_URL || 'http://127.0.0.1:8080', token: env.PAGEWATCH_TOKEN } : null;
}

function requirePostgres(config: Config, role: string): void {
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL',
      `pagewatch ${role} shares one PostgreSQL with other processes; the embedded store is single-process — use pagewatch serve, or set DATABASE_URL`,
    );
  }
}
