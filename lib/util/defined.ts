// One helper for optional fields under exactOptionalPropertyTypes: the object without its
// undefined properties, so `{ ...defined({ env: options.env }) }` passes `env` only when given
// (instead of `...(options.env === undefined ? {} : { env: options.env })` at every call). For
// startup code: it allocates and walks the keys.
export function defined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const key in o) {
    const v = o[key];
    if (v !== undefined) out[key] = v;
  }
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
