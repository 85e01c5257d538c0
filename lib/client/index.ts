// keel/client: a typed client for a keel app's routes over plain fetch (Node or a browser).
export { client, type Client, type ClientOptions } from "./client.js";
export type { ClientInput, ClientResponse, InputArgs, PathParamNames, PathsFor, ResponseOf, RouteFor, RouteTable } from "./types.js";
