/**
 * How each input of a resource reaches a request body. A map has one entry per input of the spec, so
 * a new input is a compile error until its entry says where it goes, or why it is not sent.
 */
type NotSent = `not sent: ${string}`;

export type WireMap<I, B> = { [K in keyof I]-?: ((value: Exclude<I[K], undefined>) => Partial<B>) | NotSent };

/** The body fields the given inputs make, by `map`; inputs left out send nothing. */
export function wireBody<I extends object, B>(map: WireMap<I, B>, inputs: I): Partial<B> {
  const body: Partial<B> = {};
  for (const key of Object.keys(map) as (keyof I)[]) {
    const to = map[key];
    const value = inputs[key];
    if (typeof to === "string" || value === undefined) continue;
    Object.assign(body, to(value as Exclude<I[typeof key], undefined>));
  }
  return body;
}
