/**
 * Realm resolution from the Host header: `{subdomain}.{externalHost}` names a realm;
 * any other host (the bare external host, 127.0.0.1:PORT, …) is the default realm ("").
 */
let last = { host: "", externalHost: "", subdomain: "" };

export function subdomainFromHost(host: string | undefined, externalHost: string): string {
  if (!host) return "";
  // Every request asks, almost always with the host of the one before (a pure function).
  if (host === last.host && externalHost === last.externalHost) return last.subdomain;
  const subdomain = subdomainOf(host, externalHost);
  last = { host, externalHost, subdomain };
  return subdomain;
}

function subdomainOf(host: string, externalHost: string): string {
  const h = host.toLowerCase();
  const base = externalHost.toLowerCase();
  if (h.endsWith(`.${base}`)) return h.slice(0, -(base.length + 1));
  // Also accept a port-less form of the external host (proxies often drop the port).
  const baseNoPort = base.replace(/:\d+$/, "");
  const hostNoPort = h.replace(/:\d+$/, "");
  if (baseNoPort !== base && hostNoPort.endsWith(`.${baseNoPort}`)) return hostNoPort.slice(0, -(baseNoPort.length + 1));
  return "";
}

/** The host clients use for a realm, e.g. "chat.localhost:9991" or "localhost:9991". */
export function realmHost(stringId: string, externalHost: string): string {
  return stringId ? `${stringId}.${externalHost}` : externalHost;
}

export function realmUrl(stringId: string, externalHost: string): string {
  return `http://${realmHost(stringId, externalHost)}`;
}
