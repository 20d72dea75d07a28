/**
 * Extension points: how a lower domain uses what a higher one provides without importing it.
 * GitLab's EE modules `prepend` themselves into CE classes (an approval check into MergeRequest, a
 * reset into the push refresh); here the lower domain declares the point, the higher domain
 * implements it, and the app plugs the two together once (src/app.ts). Imports keep pointing down.
 */

/** One implementation, required: using it before the app installed it is a programming error. */
export function extensionPoint<T extends object>(name: string) {
  let impl: T | undefined;
  return {
    install(i: T): void {
      impl = i;
    },
    get(): T {
      if (!impl) throw new Error(`extension point "${name}" has no implementation (src/app.ts installs it)`);
      return impl;
    },
  };
}

/** Any number of contributions, called in the order the app registered them. */
export function hookList<F extends (...args: never[]) => unknown>() {
  const hooks: F[] = [];
  return {
    register(fn: F): void {
      if (!hooks.includes(fn)) hooks.push(fn);
    },
    all(): readonly F[] {
      return hooks;
    },
  };
}
