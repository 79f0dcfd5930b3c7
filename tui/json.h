/*
 * json.h - a small streaming JSON writer (objects, arrays, strings, numbers).
 * Numbers that are not finite are written as null.
 */
#ifndef WT_JSON_H
#define WT_JSON_H

#include <stdio.h>

typedef struct json_writer {
    FILE *out;
    int depth;
    int first[32];   /* per depth: no member written yet */
    int after_key;
} json_writer;

void json_init(json_writer *w, FILE *out);
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s);
void json_number(json_writer *w, double v);
void json_int(json_writer *w, long long v);
void json_bool(json_writer *w, int b);
void json_null(json_writer *w);

#endif
