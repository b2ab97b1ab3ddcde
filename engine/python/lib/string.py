"""Common string constants and helpers (Kiln's string module, written from the documentation)."""

__all__ = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "capwords", "digits", "hexdigits",
           "octdigits", "printable", "punctuation", "whitespace", "Formatter", "Template"]

whitespace = " \t\n\r\x0b\x0c"
ascii_lowercase = "abcdefghijklmnopqrstuvwxyz"
ascii_uppercase = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ascii_letters = ascii_lowercase + ascii_uppercase
digits = "0123456789"
hexdigits = digits + "abcdef" + "ABCDEF"
octdigits = "01234567"
punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
printable = digits + ascii_letters + punctuation + whitespace


def _capitalize(word):
    if not word:
        return word
    return word[0].upper() + word[1:].lower()


def capwords(s, sep=None):
    """Split s into words (by sep), capitalize each, and join them with sep (or a space)."""
    if sep is None:
        return " ".join([_capitalize(w) for w in s.split()])
    return sep.join([_capitalize(w) for w in s.split(sep)])


def _is_ident_char(c, first):
    if c == "_" or ("a" <= c and c <= "z") or ("A" <= c and c <= "Z"):
        return True
    return not first and "0" <= c and c <= "9"


class Template:
    """$-substitution: Template('$who likes ${what}').substitute(who='tim', what='kung pao')."""
    delimiter = "$"

    def __init__(self, template):
        self.template = template

    def _render(self, mapping, safe):
        s = self.template
        out = []
        i = 0
        n = len(s)
        while i < n:
            c = s[i]
            if c != "$":
                out.append(c)
                i += 1
                continue
            if i + 1 < n and s[i + 1] == "$":
                out.append("$")
                i += 2
                continue
            braced = i + 1 < n and s[i + 1] == "{"
            j = i + 2 if braced else i + 1
            k = j
            while k < n and _is_ident_char(s[k], k == j):
                k += 1
            name = s[j:k]
            if not name or (braced and (k >= n or s[k] != "}")):
                if safe:
                    out.append("$")
                    i += 1
                    continue
                raise ValueError("Invalid placeholder in string: line 1, col " + str(i + 1))
            end = k + 1 if braced else k
            if name in mapping:
                out.append(str(mapping[name]))
            elif safe:
                out.append(s[i:end])
            else:
                raise KeyError(name)
            i = end
        return "".join(out)

    def substitute(self, mapping=None, /, **kws):
        m = {}
        if mapping is not None:
            for k in mapping:
                m[k] = mapping[k]
        m.update(kws)
        return self._render(m, False)

    def safe_substitute(self, mapping=None, /, **kws):
        m = {}
        if mapping is not None:
            for k in mapping:
                m[k] = mapping[k]
        m.update(kws)
        return self._render(m, True)

    def get_identifiers(self):
        ids = []
        s = self.template
        i = 0
        while i < len(s):
            if s[i] == "$" and i + 1 < len(s):
                if s[i + 1] == "$":
                    i += 2
                    continue
                braced = s[i + 1] == "{"
                j = i + 2 if braced else i + 1
                k = j
                while k < len(s) and _is_ident_char(s[k], k == j):
                    k += 1
                name = s[j:k]
                if name and name not in ids:
                    ids.append(name)
                i = k
            else:
                i += 1
        return ids


class Formatter:
    """str.format as a class: format(format_string, *args, **kwargs)."""

    def format(self, format_string, /, *args, **kwargs):
        return self.vformat(format_string, args, kwargs)

    def vformat(self, format_string, args, kwargs):
        return format_string.format(*args, **kwargs)
