// keel/middleware: the client address of a request, honouring trusted proxies only.
export { clientAddressResolver, canonicalIp, ipv6Network, socketAddress, type TrustProxyOptions, type ClientAddressResolver } from "./client-ip.js";
