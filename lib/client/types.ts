// The types of a typed client: from a route table's types (method, path, extractors, declared
// responses) to what a call must send and what it can get back. Types only: nothing here runs.
import type { AnyExtractor, ErrorBodyShape, ResponseBody, RouteDefinition } from "../index.js";
import type { RequestInput } from "../plugin.js";

/** The route definitions of a table (a tuple or an array). */
export type RouteTable = readonly RouteDefinition<any, any, any, any>[];

type RouteInfo<D> = D extends { readonly __route?: infer X } ? NonNullable<X> : never;
type MethodOf<D> = RouteInfo<D> extends { method: infer M extends string } ? M : never;
type PathOf<D> = RouteInfo<D> extends { path: infer P extends string } ? P : never;
type ExtractorsOf<D> = RouteInfo<D> extends { extractors: infer E } ? E : never;
type ResponsesOf<D> = RouteInfo<D> extends { responses: infer R } ? R : never;

/** The declared paths of the routes with `method`. */
export type PathsFor<T extends RouteTable, M extends string> = { [K in keyof T]: MethodOf<T[K]> extends M ? PathOf<T[K]> : never }[number];
/** The route declared as `method path`. */
export type RouteFor<T extends RouteTable, M extends string, P extends string> = Extract<T[number], { readonly __route?: { method: M; path: P } }>;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The parameter names of a path template (`/users/{id}`, `/users/:id`, `/files/{*rest}`). */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `*${infer W}` ? (W extends "" ? "wildcard" : W) : Name) | PathParamNames<Rest>
  : P extends `${string}:${infer Name}/${infer Rest}`
    ? Name | PathParamNames<`/${Rest}`>
    : P extends `${string}:${infer Name}`
      ? Name
      : never;

/** What one extractor asks of the client (required parts, or all optional after `optional()`). */
type InputOf<E> = E extends { readonly __in?: infer I } ? (unknown extends I ? {} : NonNullable<I>) : {};
type Part<I, K extends keyof RequestInput> = I extends { [P in K]: infer V } ? (I extends { optional: true } ? Partial<V & object> : V) : {};
/** The body under the key naming its encoding (`json`, `form`, `text`, `bytes`), as the route reads it. */
type BodyPart<I> = I extends { body: { type: infer K extends string; value: infer V } }
  ? I extends { optional: true }
    ? { [P in K]?: V }
    : { [P in K]: V }
  : {};

type Inputs<E> = E extends readonly unknown[] ? InputOf<E[number]> : {};
type Merged<E, K extends keyof RequestInput> = UnionToIntersection<Inputs<E> extends infer I ? (I extends unknown ? Part<I, K> : never) : never>;

type Params<P extends string, E> = [PathParamNames<P>] extends [never]
  ? {}
  : { params: Simplify<{ [K in PathParamNames<P>]: K extends keyof Merged<E, "params"> ? Merged<E, "params">[K] : string | number }> };

type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
type Query<E> = [keyof Merged<E, "query">] extends [never]
  ? { query?: Readonly<Record<string, QueryValue>> }
  : {} extends Merged<E, "query">
    ? { query?: Simplify<Merged<E, "query">> }
    : { query: Simplify<Merged<E, "query">> };

type HeaderInput<E> = [keyof Merged<E, "headers">] extends [never]
  ? { headers?: Readonly<Record<string, string>> }
  : {} extends Merged<E, "headers">
    ? { headers?: Simplify<Merged<E, "headers">> & Readonly<Record<string, string>> }
    : { headers: Simplify<Merged<E, "headers">> & Readonly<Record<string, string>> };

type Body<E> = UnionToIntersection<Inputs<E> extends infer I ? (I extends unknown ? BodyPart<I> : never) : never>;

/**
 * What a call to route `D` takes: `params` (path), `query`, `headers`, the body under the key of
 * its encoding (`json`, `form`, `text` or `bytes`), and an abort `signal`.
 */
export type ClientInput<D> =
  ExtractorsOf<D> extends infer E extends readonly AnyExtractor[]
    ? Simplify<Params<PathOf<D>, E> & Query<E> & HeaderInput<E> & Body<E> & { signal?: AbortSignal }>
    : never;

/** `[input]` when something is required, `[input?]` otherwise. */
export type InputArgs<I> = {} extends I ? [input?: I] : [input: I];

type IsOk<S extends number> = `${S}` extends `1${string}` | `2${string}` | `3${string}` ? true : false;
interface ResponseParts {
  /** The answer as fetch gave it (its body already read). */
  readonly response: Response;
  readonly headers: Headers;
}

/**
 * What a call resolves to: one member per declared status (`ok`, the literal `status`, the body
 * typed by that status's schema), and one for an undeclared error status (a 429 from a rate
 * limit, a 500, a 503 from a proxy) whose body is the uniform error body when it is JSON.
 * Narrow with `if (r.ok)` and then `r.status === 201`.
 */
export type ClientResponse<R> = [Extract<keyof R, number>] extends [never]
  ? ResponseParts & { readonly ok: boolean; readonly status: number; readonly body: unknown }
  :
      | { [S in Extract<keyof R, number>]: ResponseParts & { readonly ok: IsOk<S>; readonly status: S; readonly body: ResponseBody<R[S], S> } }[Extract<keyof R, number>]
      | (ResponseParts & { readonly ok: false; readonly status: number; readonly body: ErrorBodyShape | undefined });

/** The response of route `D`. */
export type ResponseOf<D> = ClientResponse<ResponsesOf<D>>;
