/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back one flat JSON object (an NDJSON line) in unit tests: its
 * keys in order, and one key's value as written. Strings may hold escaped
 * quotes; values may be arrays of strings.
 */
#ifndef JSON_UNIT_H
#define JSON_UNIT_H

#include <stdio.h>
#include <string.h>

/* past the string starting at p (on its opening quote) */
static const char *json_skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

/*
 * past one value: a string, an array of strings, a flat object, or a bare
 * word/number
 */
static const char *json_skip_value(const char *p)
{
	if (*p == '"')
		return json_skip_string(p);
	if (*p == '[' || *p == '{') {
		char close = *p == '[' ? ']' : '}';

		for (p++; *p && *p != close; p++)
			if (*p == '"')
				p = json_skip_string(p) - 1;
		return *p ? p + 1 : p;
	}
	return p + strcspn(p, ",}");
}

/*
 * Walks obj ({"k":v,...}): the keys, comma-separated, into keys (if not
 * NULL) and key want's value text into val. 0, or -1 if obj is not such
 * an object.
 */
static int json_walk(const char *obj, char *keys, size_t nk, const char *want,
		     char *val, size_t nv)
{
	const char *p = obj;
	size_t kl = 0;

	if (keys && nk)
		keys[0] = '\0';
	if (val && nv)
		val[0] = '\0';
	if (*p++ != '{')
		return -1;
	while (*p == '"') {
		const char *k = p + 1, *end = json_skip_string(p), *v;

		if (end[-1] != '"' || *end != ':')
			return -1;
		if (keys)
			kl += snprintf(keys + kl, kl < nk ? nk - kl : 0, "%s%.*s",
				       kl ? "," : "", (int)(end - 1 - k), k);
		v = end + 1;
		p = json_skip_value(v);
		if (want && val && (size_t)(end - 1 - k) == strlen(want) &&
		    !strncmp(k, want, end - 1 - k))
			snprintf(val, nv, "%.*s", (int)(p - v), v);
		if (*p == ',')
			p++;
	}
	return *p == '}' ? 0 : -1;
}

/* Key key's value text in obj ("" if absent); valid until the next call. */
static const char *json_get(const char *obj, const char *key)
{
	static char val[1024];

	json_walk(obj, NULL, 0, key, val, sizeof(val));
	return val;
}

#endif
