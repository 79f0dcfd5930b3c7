/* Files written atomically (tui/atomic.h), as :save and the pictures write
 * them: the content; a new file's permission bits from the umask, an
 * existing file's kept; a symbolic link written through and kept (relative,
 * chained, dangling, a loop refused); the directory flushed after the
 * rename; a failed write leaves the old file and no temporary. */
#define _DEFAULT_SOURCE /* syscall(), for the fsync below */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomic.h"

/* What the last fsync of a directory saw: the directory, and the content
 * the watched file had then. */
static struct {
    const char *watched;
    int dir_syncs;
    dev_t dev;
    ino_t ino;
    char seen[64];
} sync_log;

static void read_file(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* Stands in for libc's fsync (the program's own calls resolve here), logs
 * a directory's, and flushes for real. */
int fsync(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        sync_log.dir_syncs++;
        sync_log.dev = st.st_dev;
        sync_log.ino = st.st_ino;
        if (sync_log.watched)
            read_file(sync_log.watched, sync_log.seen, sizeof sync_log.seen);
    }
    return (int)syscall(SYS_fsync, fd);
}

static int put_text(FILE *f, void *ud, wt_err *e)
{
    (void)e;
    fputs(ud, f);
    return WT_OK;
}

static int put_fails(FILE *f, void *ud, wt_err *e)
{
    (void)ud;
    fputs("half", f);
    return wt_fail(e, "test: put failed");
}

typedef struct fixture {
    char dir[64];
    mode_t umask_was;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/wt-atomic-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    f->umask_was = umask(022);
    memset(&sync_log, 0, sizeof sync_log);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    umask(f->umask_was);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* dir/name into buf. */
static const char *in(const fixture *f, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", f->dir, name);
    return buf;
}

static void make_file(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

static void assert_content(const char *path, const char *want)
{
    char got[64];
    read_file(path, got, sizeof got);
    assert_string_equal(got, want);
}

/* The names in directory dir, sorted and joined by spaces, into buf. */
static const char *names_in(const char *dir, char *buf, size_t n)
{
    struct dirent **list;
    int k = scandir(dir, &list, NULL, alphasort);
    assert_true(k >= 0);
    buf[0] = '\0';
    for (int i = 0; i < k; i++) {
        if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? " " : "", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return buf;
}

static void test_new_file_takes_the_umask(void **state)
{
    fixture *f = *state;
    char a[128], b[128], names[256];
    wt_err e;
    assert_int_equal(atomic_write(in(f, "a.yaml", a, sizeof a), "save", put_text, "one\n", &e), WT_OK);
    assert_int_equal(mode_of(a), 0644);
    assert_content(a, "one\n");
    umask(027);
    assert_int_equal(atomic_write(in(f, "b.yaml", b, sizeof b), "save", put_text, "two\n", &e), WT_OK);
    assert_int_equal(mode_of(b), 0640);
    assert_content(b, "two\n");
    assert_string_equal(names_in(f->dir, names, sizeof names), "a.yaml b.yaml");
}

static void test_existing_file_keeps_its_mode(void **state)
{
    fixture *f = *state;
    char a[128], b[128];
    wt_err e;
    umask(077); /* the case: a 0644 file became mkstemp's 0600 */
    make_file(in(f, "shared.yaml", a, sizeof a), "old\n", 0644);
    assert_int_equal(atomic_write(a, "save", put_text, "new\n", &e), WT_OK);
    assert_int_equal(mode_of(a), 0644);
    assert_content(a, "new\n");
    umask(022);
    make_file(in(f, "private.yaml", b, sizeof b), "old\n", 0600);
    assert_int_equal(atomic_write(b, "save", put_text, "new\n", &e), WT_OK);
    assert_int_equal(mode_of(b), 0600);
    assert_content(b, "new\n");
}

static void test_symlink_is_written_through(void **state)
{
    fixture *f = *state;
    char a[128], b[128], target[128], link[128], chain[128], names[256], text[128];
    wt_err e;
    assert_int_equal(mkdir(in(f, "a", a, sizeof a), 0755), 0);
    assert_int_equal(mkdir(in(f, "b", b, sizeof b), 0755), 0);
    make_file(in(f, "b/target.yaml", target, sizeof target), "old\n", 0640);
    /* a relative link in another directory, and an absolute link to it */
    assert_int_equal(symlink("../b/target.yaml", in(f, "a/link.yaml", link, sizeof link)), 0);
    assert_int_equal(symlink(link, in(f, "chain.yaml", chain, sizeof chain)), 0);
    sync_log.watched = target;
    assert_int_equal(atomic_write(chain, "save", put_text, "new\n", &e), WT_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(chain, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    ssize_t n = readlink(link, text, sizeof text - 1);
    assert_int_equal(n, (ssize_t)strlen("../b/target.yaml"));
    text[n] = '\0';
    assert_string_equal(text, "../b/target.yaml");
    assert_content(target, "new\n");
    assert_int_equal(mode_of(target), 0640);
    /* the temporary went beside the target and is gone; the flushed
     * directory is the target's, after the rename */
    assert_string_equal(names_in(a, names, sizeof names), "link.yaml");
    assert_string_equal(names_in(b, names, sizeof names), "target.yaml");
    assert_int_equal(stat(b, &st), 0);
    assert_int_equal(sync_log.dir_syncs, 1);
    assert_true(sync_log.dev == st.st_dev && sync_log.ino == st.st_ino);
    assert_string_equal(sync_log.seen, "new\n");
}

static void test_dangling_link_creates_its_target(void **state)
{
    fixture *f = *state;
    char link[128], target[128], names[256];
    wt_err e;
    assert_int_equal(symlink("made.yaml", in(f, "link.yaml", link, sizeof link)), 0);
    assert_int_equal(atomic_write(link, "save", put_text, "made\n", &e), WT_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_content(in(f, "made.yaml", target, sizeof target), "made\n");
    assert_int_equal(mode_of(target), 0644);
    assert_string_equal(names_in(f->dir, names, sizeof names), "link.yaml made.yaml");
}

static void test_directory_is_flushed_after_the_rename(void **state)
{
    fixture *f = *state;
    char a[128];
    wt_err e;
    make_file(in(f, "s.yaml", a, sizeof a), "old\n", 0644);
    sync_log.watched = a;
    assert_int_equal(atomic_write(a, "save", put_text, "new\n", &e), WT_OK);
    struct stat st;
    assert_int_equal(stat(f->dir, &st), 0);
    assert_int_equal(sync_log.dir_syncs, 1);
    assert_true(sync_log.dev == st.st_dev && sync_log.ino == st.st_ino);
    assert_string_equal(sync_log.seen, "new\n");
}

static void test_failures_leave_the_old_file(void **state)
{
    fixture *f = *state;
    char a[128], loop[128], msg[256], names[256];
    wt_err e;
    make_file(in(f, "s.yaml", a, sizeof a), "old\n", 0600);
    assert_int_equal(atomic_write(a, "save", put_fails, NULL, &e), WT_EINPUT);
    assert_string_equal(e.msg, "test: put failed");
    assert_content(a, "old\n");
    assert_int_equal(mode_of(a), 0600);
    assert_int_equal(sync_log.dir_syncs, 0);
    /* a link to itself is refused with the path, before anything is written */
    assert_int_equal(symlink("loop.yaml", in(f, "loop.yaml", loop, sizeof loop)), 0);
    assert_int_equal(atomic_write(loop, "save", put_text, "x\n", &e), WT_EINPUT);
    snprintf(msg, sizeof msg, "save: %s: Too many levels of symbolic links", loop);
    assert_string_equal(e.msg, msg);
    assert_string_equal(names_in(f->dir, names, sizeof names), "loop.yaml s.yaml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_file_takes_the_umask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_existing_file_keeps_its_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_is_written_through, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dangling_link_creates_its_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_is_flushed_after_the_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_leave_the_old_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
