/**
 * The program tree of a git ref, ready to render: `git archive` of the commit into a temporary
 * directory (so its own index.ts, components and stack files are used), with the working tree's
 * installed dependencies linked in. Workspace packages (the policy pack) link to the archived
 * tree's copy, so an old commit renders with its old pack code too.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { InputError } from "./errors";

/** A ref that cannot be resolved or archived; the message says how to fix it. */
export class RefError extends InputError {}

export interface RefTree {
    /** The archived tree. */
    dir: string;
    /** The full commit id the ref resolved to. */
    commit: string;
    /** Removes the directory. */
    remove(): void;
}

function git(cwd: string, args: string[]): Buffer {
    return execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 512 * 1024 * 1024 });
}

/** The commit checked out at `root`, or `null` outside a git repository. */
export function headCommit(root: string): string | null {
    try {
        return git(root, ["rev-parse", "HEAD"]).toString().trim();
    } catch {
        return null;
    }
}

/**
 * The web address of the repository at `root` from its `origin` remote, as actions/checkout and
 * `git clone` set it (`https://github.com/o/r.git`, `git@github.com:o/r.git`, credentials
 * dropped); `null` without an https or scp-like remote.
 */
export function originWebUrl(root: string): string | null {
    let url: string;
    try {
        url = git(root, ["remote", "get-url", "origin"]).toString().trim();
    } catch {
        return null;
    }
    const https = /^https?:\/\/(?:[^@/]+@)?([^/]+)\/(.+?)(?:\.git)?\/?$/.exec(url);
    const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+?)(?:\.git)?\/?$/.exec(url);
    const m = https ?? scp;
    return m ? `https://${m[1]}/${m[2]}` : null;
}

/** Resolves `ref` in the repository at `repoRoot`, e.g. `HEAD~1`, `origin/main`, a commit id. */
export function resolveRef(repoRoot: string, ref: string): string {
    try {
        return git(repoRoot, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])
            .toString()
            .trim();
    } catch {
        throw new RefError(
            `${ref} is not a commit here: fetch it first (a shallow CI checkout needs fetch-depth: 0, or \`git fetch origin <base>\`)`,
        );
    }
}

/** Names of the npm workspace packages of `root` (its package.json `workspaces`), by directory. */
function workspacePackages(root: string): Map<string, string> {
    const result = new Map<string, string>();
    try {
        const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { workspaces?: string[] };
        for (const dir of manifest.workspaces ?? []) {
            const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8")) as { name?: string };
            if (pkg.name) {
                result.set(pkg.name, dir);
            }
        }
    } catch {
        // No manifest or workspaces: nothing to redirect.
    }
    return result;
}

/**
 * Links `from/node_modules` into `to/node_modules` entry by entry, except the workspace packages
 * of `to`, which point at `to`'s own directories.
 */
function linkDependencies(from: string, to: string): void {
    const source = path.join(from, "node_modules");
    if (!fs.existsSync(source)) {
        throw new RefError(`${source} does not exist: run npm ci first`);
    }
    const workspaces = workspacePackages(to);
    const target = path.join(to, "node_modules");
    // A committed node_modules (a symlink, say) must not receive links into what it points at.
    if (fs.lstatSync(target, { throwIfNoEntry: false })) {
        fs.rmSync(target, { recursive: true, force: true });
    }
    fs.mkdirSync(target);
    for (const entry of fs.readdirSync(source)) {
        if (entry.startsWith("@")) {
            fs.mkdirSync(path.join(target, entry), { recursive: true });
            for (const scoped of fs.readdirSync(path.join(source, entry))) {
                const name = `${entry}/${scoped}`;
                const link = workspaces.has(name) ? path.join(to, workspaces.get(name) as string) : path.join(source, entry, scoped);
                fs.symlinkSync(link, path.join(target, entry, scoped), "dir");
            }
            continue;
        }
        const link = workspaces.has(entry) ? path.join(to, workspaces.get(entry) as string) : path.join(source, entry);
        fs.symlinkSync(link, path.join(target, entry), fs.statSync(path.join(source, entry)).isDirectory() ? "dir" : "file");
    }
    // A workspace's own node_modules (dependencies npm could not hoist).
    for (const dir of workspaces.values()) {
        const own = path.join(from, dir, "node_modules");
        if (fs.existsSync(own) && fs.existsSync(path.join(to, dir)) && !fs.existsSync(path.join(to, dir, "node_modules"))) {
            fs.symlinkSync(own, path.join(to, dir, "node_modules"), "dir");
        }
    }
}

/** Archives `ref` of the repository at `repoRoot` into a temporary directory with dependencies linked. */
export function checkoutRef(repoRoot: string, ref: string): RefTree {
    const commit = resolveRef(repoRoot, ref);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plan-diff-"));
    const remove = () => fs.rmSync(dir, { recursive: true, force: true });
    try {
        const archive = git(repoRoot, ["archive", "--format=tar", commit]);
        execFileSync("tar", ["-x", "-C", dir], { input: archive });
        linkDependencies(repoRoot, dir);
    } catch (err) {
        remove();
        throw err instanceof RefError ? err : new RefError(`cannot unpack ${ref} (${commit.slice(0, 12)}): ${(err as Error).message}`);
    }
    return { dir, commit, remove };
}
