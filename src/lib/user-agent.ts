/** The product name a User-Agent starts with ("ParleyMobile/1.2 (Android)" → "ParleyMobile"). */
export function userAgentProduct(ua: string | undefined): string {
  if (ua === undefined) return "";
  // Clients send the same User-Agent on every request: remember the last answer.
  if (ua === last.ua) return last.product;
  const product = ua.split(/[/ ]/)[0];
  last = { ua, product };
  return product;
}

let last = { ua: "", product: "" };
