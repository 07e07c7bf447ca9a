import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';
import { openDatabase } from '../store/open-database.ts';
import { MigrationMismatchError, migrate } from '../store/migrate.ts';
import { serveUntilSignalled } from '../server.ts';
import { workUntilSignalled } from '../worker.ts';
import { adminCommand } from './admin-command.ts';
import { printOpenApi } from './openapi-command.ts';

const USAGE = `usage: pagewatch <command>

  serve     API, scheduler and workers in one process (embedded store unless DATABASE_URL is set)
  api       HTTP API only, for scale-out (PostgreSQL only)
  worker    scheduler and check workers only, for scale-out (PostgreSQL only)
  migrate   apply database migrations
  admin     operator tasks through a running server (pagewatch admin --help)
  openapi   print the OpenAPI document`;

/** The process entry point: the only place that reads process.env. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case 'serve':
        await serveUntilSignalled(loadConfig(process.env));
        return 0;
      case 'api': {
        const config = loadConfig(process.env);
        requirePostgres(config, 'api');
        await serveUntilSignalled(config, { engine: false });
        return 0;
      }
      case 'worker': {
        const config = loadConfig(process.env);
        requirePostgres(config, 'worker');
        await workUntilSignalled(config);
        return 0;
      }
      case 'migrate': {
        const config = loadConfig(process.env);
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
        return await adminCommand(rest, process.env);
      case 'openapi':
        await printOpenApi(loadConfig(process.env));
        return 0;
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

function requirePostgres(config: Config, role: string): void {
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL',
      `pagewatch ${role} shares one PostgreSQL with other processes; the embedded store is single-process — use pagewatch serve, or set DATABASE_URL`,
    );
  }
}
