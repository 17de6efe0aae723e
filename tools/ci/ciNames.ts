/**
 * The names CI's workflows give a stack's parts in GitHub (.github/workflows): the environments
 * each of its roles is assumed from, and the repository variables holding its runners. One home,
 * read by the runner matrix (tools/ci/runners.ts), the bootstrap script (tools/roles/bootstrap.ts) and the
 * workflows' tests.
 */

/** The GitHub environment each CI role of `stack` is assumed from (deploy.yml, pull-request.yml, drift.yml). Pure. */
export function environmentsOf(stack: string): { deploy: string; preview: string; drift: string } {
    return { deploy: stack, preview: `preview-${stack}`, drift: `drift-${stack}` };
}

/** The repository variable holding a stack's deploy runner: `RUNNER_DEV` for `dev`. Pure. */
export function runnerVariable(stack: string): string {
    return `RUNNER_${variableSuffix(stack)}`;
}

/** The repository variable holding the runner of a stack's pull-request preview: `RUNNER_PREVIEW_DEV`. Pure. */
export function previewRunnerVariable(stack: string): string {
    return `RUNNER_PREVIEW_${variableSuffix(stack)}`;
}

function variableSuffix(stack: string): string {
    return stack.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}
