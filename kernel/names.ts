/**
 * Object names as the API server validates them (apimachinery `validation.IsDNS1123Subdomain`,
 * `IsDNS1123Label`, `IsDNS1035Label`, `path.ValidatePathSegmentName`, and the name function each
 * kind's validation picks). Pure; never throws.
 */

/** A lowercase RFC 1123 subdomain: labels joined by dots, at most 253 characters. */
export const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;

type NameRule = { test: (name: string) => boolean; what: string };

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
const PATH_SEGMENT: NameRule = {
    test: (n) => n !== "." && n !== ".." && !/[/%]/.test(n),
    what: 'a path segment (not "." or "..", without "/" or "%")',
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

function problem(value: string, rule: NameRule, key: string): string | undefined {
    if (rule.test(value)) {
        return undefined;
    }
    const hidden = hiddenCharacters(value);
    return `${key} ${JSON.stringify(value)} is not ${rule.what}${hidden.length > 0 ? `: it contains ${hidden.join(", ")} (invisible, control or bidirectional characters)` : ""}`;
}

/** Why the API server refuses `name` as the `metadata.name` of a `kind`, or `undefined`. */
export function objectNameProblem(kind: string, name: string): string | undefined {
    return problem(name, NAME_RULES[kind] ?? SUBDOMAIN, "metadata.name");
}

/** Why the API server refuses `namespace` as a `metadata.namespace`, or `undefined`. */
export function namespaceNameProblem(namespace: string): string | undefined {
    return problem(namespace, LABEL, "metadata.namespace");
}
