/** The external host the test server runs as; the default realm lives on it. */
export const EXTERNAL_HOST_FOR_CLIENT = "testserver.local";
