// The file names a program reads as its standard input: what it reads from one is what
// the command line feeds it (a here-document, a pipe), which the walker knows.

export const STDIN_FILES: ReadonlySet<string> = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);
