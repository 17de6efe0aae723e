/**
 * Object names as the API server validates them (apimachinery `validation.IsDNS1123Subdomain`,
 * `IsDNS1123Label`, `IsDNS1035Label`, `path.ValidatePathSegmentName`, and the name function each
 * kind's validation picks), and `metadata.generateName` as a prefix of such names
 * (`api/validation` `ValidateObjectMetaAccessor` with `prefix` true, apiserver `SimpleNameGenerator`).
 * Pure; never throws.
 */

/** A lowercase RFC 1123 subdomain: labels joined by dots, at most 253 characters. */
export const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;

/**
 * A kind's name function: whether a name is valid, and whether a `generateName` prefix is (by
 * default the name rule after `maskTrailingDash`).
 */
type NameRule = { test: (name: string) => boolean; what: string; testPrefix?: (prefix: string) => boolean };

const SUBDOMAIN: NameRule = {
    test: (n) => n.length <= 253 && DNS_SUBDOMAIN.test(n),
    what: 'a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters)',
};
const LABEL: NameRule = {
    test: (n) => n.length <= 63 && DNS_LABEL.test(n),
    what: 'a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)',
};
const LABEL_1035: NameRule = {
    test: (n) => n.length <= 63 && DNS_1035_LABEL.test(n),
    what: 'a DNS-1035 label (lower-case letters, digits and "-", starting with a letter, ending with a letter or digit, at most 63 characters)',
};
const isPathSegment = (n: string) => n !== "." && n !== ".." && !/[/%]/.test(n);
const PATH_SEGMENT: NameRule = {
    test: isPathSegment,
    what: 'a path segment (not "." or "..", without "/" or "%")',
    // RBAC's ValidateRBACName ignores `prefix`: a generateName is checked as a whole name, unmasked.
    testPrefix: isPathSegment,
};

// Kinds whose validation uses another name function than NameIsDNSSubdomain.
const NAME_RULES: Record<string, NameRule> = {
    Namespace: LABEL,
    Service: LABEL_1035,
    Role: PATH_SEGMENT,
    ClusterRole: PATH_SEGMENT,
    RoleBinding: PATH_SEGMENT,
    ClusterRoleBinding: PATH_SEGMENT,
};

/** Invisible, control and bidirectional characters in `text`, as `U+202E` — what a reader cannot see. */
function hiddenCharacters(text: string): string[] {
    return [...new Set([...text].filter((ch) => /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)))].map(
        (ch) => `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`,
    );
}

function problem(value: string, valid: boolean, what: string, key: string): string | undefined {
    if (valid) {
        return undefined;
    }
    const hidden = hiddenCharacters(value);
    return `${key} ${JSON.stringify(value)} is not ${what}${hidden.length > 0 ? `: it contains ${hidden.join(", ")} (invisible, control or bidirectional characters)` : ""}`;
}

/** Why the API server refuses `name` as the `metadata.name` of a `kind`, or `undefined`. */
export function objectNameProblem(kind: string, name: string): string | undefined {
    const rule = NAME_RULES[kind] ?? SUBDOMAIN;
    return problem(name, rule.test(name), rule.what, "metadata.name");
}

/**
 * apimachinery's `maskTrailingDash`: a prefix ending in "-" (longer than one character) is
 * checked with its last two characters replaced by "a", as upstream slices them (`name[:len-2]`):
 * "web-" is checked as "wea", and "A-" as "a". Go slices bytes: a character before the "-" that
 * is not ASCII is cut in half there, which no name rule accepts; such a prefix is checked as it is
 * (no rule accepts its non-ASCII character either).
 */
function maskTrailingDash(prefix: string): string {
    if (prefix.length <= 1 || !prefix.endsWith("-")) {
        return prefix;
    }
    return prefix.charCodeAt(prefix.length - 2) <= 0x7f ? `${prefix.slice(0, -2)}a` : prefix;
}

/** The apiserver's SimpleNameGenerator: at most 58 characters of the prefix, then 5 random ones. */
const GENERATED_PREFIX_LENGTH = 58;
// Its random characters are lower-case letters and digits: any five stand for all of them here.
const RANDOM_SUFFIX = "x7k2p";

/**
 * Why the API server refuses `generateName` as the `metadata.generateName` of a `kind`, or
 * `undefined`. The prefix is checked with the kind's name rule, a trailing "-" allowed; an object
 * without `metadata.name` (`named` false) is then named by the prefix (cut to 58 characters) and
 * 5 random letters and digits, and that name must be valid too, which a prefix can pass and its
 * names still fail ("a.-", "A-": maskTrailingDash drops the character before the "-").
 */
export function generateNameProblem(kind: string, generateName: string, named: boolean): string | undefined {
    const rule = NAME_RULES[kind] ?? SUBDOMAIN;
    const prefixOk = rule.testPrefix ? rule.testPrefix(generateName) : rule.test(maskTrailingDash(generateName));
    if (!prefixOk) {
        return problem(generateName, false, `the start of ${rule.what}`, "metadata.generateName");
    }
    if (!named && !rule.test(`${generateName.slice(0, GENERATED_PREFIX_LENGTH)}${RANDOM_SUFFIX}`)) {
        return `metadata.generateName ${JSON.stringify(generateName)} makes names that are not ${rule.what}: the API server names the object with it (its first ${GENERATED_PREFIX_LENGTH} characters) and 5 random letters and digits, e.g. ${JSON.stringify(generateName.slice(0, GENERATED_PREFIX_LENGTH) + RANDOM_SUFFIX)}`;
    }
    return undefined;
}

/** Why the API server refuses `namespace` as a `metadata.namespace`, or `undefined`. */
export function namespaceNameProblem(namespace: string): string | undefined {
    return problem(namespace, LABEL.test(namespace), LABEL.what, "metadata.namespace");
}
