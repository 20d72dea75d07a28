/**
 * Webhook secret tokens, encrypted at rest. GitLab stores `encrypted_token` (attr_encrypted,
 * AES-256-GCM with db_key_base) because the token is sent with every delivery: a digest would not
 * do. Here the key is derived from WEBHOOK_TOKEN_KEY (a deployment secret); without it a development
 * key from TOKEN_PEPPER is used, and README says to set it in production.
 * Stored form: `v1:<iv base64>:<ciphertext+tag base64>`.
 */
import type { Config } from '../platform/config';
import { fromBase64, toBase64 } from '../platform/crypto';

const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(config: Pick<Config, 'webhookTokenKey' | 'tokenPepper'>): Promise<CryptoKey> {
  const secret = config.webhookTokenKey ?? `development webhook key:${config.tokenPepper}`;
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(`workflow-api web_hooks.encrypted_token:${secret}`))
      .then((raw) => crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']));
    keys.set(secret, key);
  }
  return key;
}

export async function encryptToken(config: Pick<Config, 'webhookTokenKey' | 'tokenPepper'>, token: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await keyFor(config), new TextEncoder().encode(token)));
  return `v1:${toBase64(iv)}:${toBase64(sealed)}`;
}

/** The token, or null when there is none or it cannot be opened (a rotated key: sent without a token). */
export async function decryptToken(config: Pick<Config, 'webhookTokenKey' | 'tokenPepper'>, stored: string | null): Promise<string | null> {
  if (!stored) return null;
  const [v, iv, body] = stored.split(':');
  const ivBytes = iv ? fromBase64(iv) : null;
  const bodyBytes = body ? fromBase64(body) : null;
  if (v !== 'v1' || !ivBytes || !bodyBytes) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: ivBytes as Uint8Array<ArrayBuffer> }, await keyFor(config), bodyBytes as Uint8Array<ArrayBuffer>);
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}
