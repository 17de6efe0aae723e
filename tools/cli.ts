/** The process boundary of every tools/ command. */

/**
 * Runs a command's `main` and exits with its code once stdout has drained: a piped stdout is
 * asynchronous, and exiting right after a large write cuts the output at the pipe buffer
 * (64 KiB). An unexpected error is printed and exits 2 (bad input or a broken environment).
 */
export function runMain(main: () => Promise<number>): void {
    main().then(
        (code) => process.stdout.write("", () => process.exit(code)),
        (err) => {
            process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
            process.exit(2);
        },
    );
}
