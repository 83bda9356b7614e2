/**
 * `work`, or `'timeout'` when it has not settled within `ms`. The timer is cleared as soon as the work
 * settles: a sleep raced and left running keeps a process alive until it fires (every traced CLI
 * command lingered 2 s after its output, the trace writer's close deadline).
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
