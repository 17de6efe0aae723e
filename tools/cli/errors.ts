/**
 * Input a command cannot use. Every tools/ command exits 2 on these and prints the message alone:
 * whoever runs it needs what is wrong and where, not this program's stack.
 */
export class InputError extends Error {
    constructor(message: string) {
        super(message);
        this.name = new.target.name;
    }
}

/** Bad input at a place in a file; `line` is 1-based when known. */
export class FileError extends InputError {
    constructor(
        readonly file: string,
        readonly line: number | undefined,
        /** What is wrong there, without the file and line `message` starts with. */
        readonly reason: string,
    ) {
        super(`${file}${line ? `:${line}` : ""}: ${reason}`);
    }
}

/** Input the policy gate cannot use: a policy config, a pack that does not start, a stack too large. */
export class GateInputError extends InputError {}
