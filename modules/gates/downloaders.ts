// Programs that fetch from the network and print or save what they get: the shell walker
// leaves a script fed from one to block-pipe-to-shell, which names the download.
export const DOWNLOADERS: ReadonlySet<string> = new Set(["curl", "wget", "fetch", "http", "https", "xh", "xhs", "curlie", "aria2c", "lwp-request", "get"]);
