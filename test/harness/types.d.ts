declare module '#harness' {
  export const runtime: 'workers' | 'node';
  export const rootToken: string;
  export function fetchApi(path: string, init?: RequestInit): Promise<Response>;
  export function storageSql(query: string): Promise<unknown[]>;
  export function sendJob(message: { type: string; id: string; [k: string]: unknown }): Promise<void>;
}
