/**
 * Requests in flight on this Node process, so background work yields to them. On Workers a Queue
 * consumer runs in its own invocation; on Node the in-process job runner (jobs-in-process.ts) shares
 * the one event loop with the requests, and a webhook fan-out (a delivery per hook) or an export
 * part started while a request is being answered adds its CPU time to that request's latency. The
 * runner waits for a quiet moment before it starts a job, up to a bound, so a server that is never
 * quiet still gets its jobs done.
 */
let inFlight = 0;
let waiters: (() => void)[] = [];

/** Called by the Node server for each request it receives; the returned function when it is answered. */
export function requestStarted(): () => void {
  inFlight++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    inFlight--;
    if (inFlight === 0) {
      const ready = waiters;
      waiters = [];
      for (const w of ready) w();
    }
  };
}

export const requestsInFlight = () => inFlight;

/** Resolves when no request is in flight, or after `maxWaitMs` whatever the traffic. */
export function whenQuiet(maxWaitMs: number): Promise<void> {
  if (inFlight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiters = waiters.filter((w) => w !== wake);
      resolve();
    }, maxWaitMs);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    waiters.push(wake);
  });
}
