import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Runs a script in a fresh network namespace that has only loopback, so a
// guard that wrongly let a request through fails with ENETUNREACH (or hits a
// local listener) instead of sending a packet off this machine.

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Why namespaces cannot be used here, or null when they can. */
export function loopbackNamespaceUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'unshare -n needs root';
  const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.error) return `unshare is unavailable: ${probe.error.message}`;
  if (probe.status !== 0) return `unshare -n or ip failed: ${probe.stderr.trim()}`;
  return null;
}

export interface NamespaceRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node --import tsx <script>` inside `unshare -n` with lo up. */
export function runInLoopbackNamespace(script: string, timeoutMs = 120_000): Promise<NamespaceRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx "$1"', process.execPath, script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
