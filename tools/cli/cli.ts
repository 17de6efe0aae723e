/** The process boundary of every tools/ command: its command line and its exit code. */
import * as fs from "fs";
import * as path from "path";
import { parseArgs, ParseArgsConfig } from "node:util";
import { InputError } from "./errors";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a command line with `node:util` `parseArgs` (strict: an unknown or incomplete option is
 * an error). `--help` is added to every command: it prints `usage` and the command exits 0.
 */
export function parseCommandLine<O extends Options>(argv: readonly string[], options: O, usage: string) {
    const withHelp = { ...options, help: { type: "boolean", short: "h" } } as const;
    let parsed;
    try {
        parsed = parseArgs({ args: [...argv], options: withHelp, allowPositionals: true, strict: true });
    } catch (err) {
        // Node's message ends with advice about `--` that does not apply to these commands.
        throw new InputError(`${(err as Error).message.split(". ")[0]}\n${usage}`);
    }
    if ((parsed.values as { help?: boolean }).help) {
        throw new HelpRequested(usage);
    }
    return parsed;
}

/** One of the allowed values of an option, or an input error naming them. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
    if (!(allowed as readonly string[]).includes(value)) {
        throw new InputError(`${flag} must be ${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}, not "${value}"`);
    }
    return value as T;
}

/** `--help`: the usage goes to stdout and the command succeeds. */
class HelpRequested extends Error {}

/**
 * Runs a command's `main` and exits with its code once stdout has drained: a piped stdout is
 * asynchronous, and exiting right after a large write cuts the output at the pipe buffer
 * (64 KiB). Bad input (`InputError`, or one of `inputErrors` from outside tools/) exits 2 with its
 * message alone; anything else is a defect and exits 2 with its stack.
 */
export function runMain(main: () => Promise<number>, inputErrors: readonly (abstract new (...args: never[]) => Error)[] = []): void {
    const exit = (code: number) => process.stdout.write("", () => process.exit(code));
    main().then(exit, (err) => {
        if (err instanceof HelpRequested) {
            process.stdout.write(`${err.message}\n`);
            exit(0);
            return;
        }
        const known = err instanceof InputError || inputErrors.some((E) => err instanceof E);
        process.stderr.write(`${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
        exit(2);
    });
}

/**
 * The file of a module of tools/ by its name (`plan.ts`): names are unique across the product
 * folders (test/tools.test.ts checks), so scripts and tests need not know which folder holds it.
 */
export function toolFile(name: string): string {
    const root = path.resolve(__dirname, "..");
    for (const folder of fs.readdirSync(root, { withFileTypes: true })) {
        const file = path.join(root, folder.name, name);
        if (folder.isDirectory() && fs.existsSync(file)) {
            return file;
        }
    }
    throw new Error(`no module ${name} under tools/`);
}
