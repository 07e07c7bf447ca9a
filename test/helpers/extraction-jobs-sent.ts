import type { TestApp } from './test-app.ts';

/** Jobs of `kind` handed to an extraction thread so far (the work queue's wait metric counts each as it is sent). */
export async function extractionJobsSent(t: TestApp, kind: string): Promise<number> {
  const { values } = await t.metrics.workQueueWait.get();
  return values
    .filter((v) => v.metricName === 'pagewatch_work_queue_wait_seconds_count' && v.labels.queue === 'extraction' && v.labels.kind === kind)
    .reduce((sum, v) => sum + v.value, 0);
}
