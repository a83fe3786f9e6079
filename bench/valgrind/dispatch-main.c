/* Preloaded into `gatehouse serve` under valgrind only (bench/callgrind-http.sh), never into a served binary.
 * Swift's async main ends in dispatch_main(), which exits the main thread with pthread_exit and parks it in a
 * sigsuspend; valgrind 3.19 dies there ("the 'impossible' happened"). This dispatch_main keeps the main thread
 * alive instead and drains the main queue itself, through the hooks libdispatch exports for CoreFoundation's
 * run loop: the queue's eventfd, then the drain callback. Everything else in the process is unchanged. */
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

void dispatch_main(void) {
    int fd = _dispatch_get_main_queue_handle_4CF();
    for (;;) {
        struct pollfd ready = { .fd = fd, .events = POLLIN };
        if (poll(&ready, 1, -1) > 0) {
            uint64_t count;
            (void)read(fd, &count, sizeof count);
        }
        _dispatch_main_queue_callback_4CF(0);
    }
}
