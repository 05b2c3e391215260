/**
 * @file result_channel.h
 * @brief The grader's result channel, as the kit's programs (test runner, timed driver) use it.
 *
 * The grader gives a program a pipe it owns (`KIT_RESULT_FD`) and a fresh random token
 * (`KIT_RESULT_TOKEN`). The program takes both out of its environment first thing, so code
 * run later (a student's) does not find them there, and at the very end writes one line
 * `<token> <result>` to the pipe. The grader scores only from that line and the exit status,
 * never from what the program printed.
 */
#ifndef KIT_RESULT_CHANNEL_H
#define KIT_RESULT_CHANNEL_H

#ifdef __cplusplus
extern "C" {
#endif

/** Takes the channel out of the environment; call it before anything else in main(). */
void kit_result_channel_take(void);

/** Writes `<token> <result>` and a newline to the channel once, then closes it; does nothing
 * when the program was not given a channel. */
void kit_result_channel_send(const char *result);

/**
 * Writes `<token> note <text>` and a newline, and keeps the channel open: facts the grader
 * reads beside the result (a test's first failure message, the CPU time the student's process
 * used). Control characters in @p text become spaces, other bytes outside printable ASCII
 * '?', and the line is cut at 400 bytes.
 * Call it before kit_result_channel_send(); it does nothing without a channel.
 */
void kit_result_channel_note(const char *text);

/**
 * Closes this process's copy of the channel without writing to it: a process forked by a
 * program that answers the grader itself (the timed driver's one per side) must not.
 */
void kit_result_channel_drop(void);

#ifdef __cplusplus
}
#endif

#endif
