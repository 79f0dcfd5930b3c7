#include "json.h"

#include <math.h>

void json_init(json_writer *w, FILE *out)
{
    w->out = out;
    w->depth = 0;
    w->first[0] = 1;
    w->after_key = 0;
}

/* The separator before a value: none after a key, a comma between members. */
static void separate(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (!w->first[w->depth])
        fputc(',', w->out);
    w->first[w->depth] = 0;
}

static void begin(json_writer *w, char c)
{
    separate(w);
    fputc(c, w->out);
    if (w->depth + 1 < (int)(sizeof w->first / sizeof w->first[0]))
        w->depth++;
    w->first[w->depth] = 1;
}

static void finish(json_writer *w, char c)
{
    fputc(c, w->out);
    if (w->depth > 0)
        w->depth--;
    if (w->depth == 0)
        fputc('\n', w->out);
}

void json_begin_object(json_writer *w) { begin(w, '{'); }
void json_end_object(json_writer *w) { finish(w, '}'); }
void json_begin_array(json_writer *w) { begin(w, '['); }
void json_end_array(json_writer *w) { finish(w, ']'); }

static void quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void json_key(json_writer *w, const char *key)
{
    separate(w);
    quoted(w->out, key);
    fputc(':', w->out);
    w->after_key = 1;
}

void json_string(json_writer *w, const char *s)
{
    separate(w);
    quoted(w->out, s);
}

void json_number(json_writer *w, double v)
{
    separate(w);
    if (isfinite(v))
        fprintf(w->out, "%.17g", v);
    else
        fputs("null", w->out);
}

void json_int(json_writer *w, long long v)
{
    separate(w);
    fprintf(w->out, "%lld", v);
}

void json_null(json_writer *w)
{
    separate(w);
    fputs("null", w->out);
}

void json_bool(json_writer *w, int b)
{
    separate(w);
    fputs(b ? "true" : "false", w->out);
}
