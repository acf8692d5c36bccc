#include "csdbus.h"

#include <cloader.h>
#include <pthread.h>

/* The library's functions, filled once by load(); read only after pthread_once returned. */
static struct {
    __typeof__(sd_bus_new) *new_bus;
    __typeof__(sd_bus_set_address) *set_address;
    __typeof__(sd_bus_set_bus_client) *set_bus_client;
    __typeof__(sd_bus_set_method_call_timeout) *set_method_call_timeout;
    __typeof__(sd_bus_start) *start;
    __typeof__(sd_bus_close_unref) *close_unref;
    __typeof__(sd_bus_is_open) *is_open;
    __typeof__(sd_bus_is_ready) *is_ready;
    __typeof__(sd_bus_get_fd) *get_fd;
    __typeof__(sd_bus_get_events) *get_events;
    __typeof__(sd_bus_get_timeout) *get_timeout;
    __typeof__(sd_bus_process) *process;
    __typeof__(sd_bus_wait) *wait;
    __typeof__(sd_bus_call) *call;
    __typeof__(sd_bus_match_signal) *match_signal;
    __typeof__(sd_bus_slot_unref) *slot_unref;
    __typeof__(sd_bus_error_free) *error_free;
    __typeof__(sd_bus_message_new_method_call) *message_new_method_call;
    __typeof__(sd_bus_message_unref) *message_unref;
    __typeof__(sd_bus_message_get_member) *message_get_member;
    __typeof__(sd_bus_message_get_sender) *message_get_sender;
    __typeof__(sd_bus_message_append_basic) *message_append_basic;
    __typeof__(sd_bus_message_open_container) *message_open_container;
    __typeof__(sd_bus_message_close_container) *message_close_container;
    __typeof__(sd_bus_message_read_basic) *message_read_basic;
    __typeof__(sd_bus_message_append_array) *message_append_array;
    __typeof__(sd_bus_message_read_array) *message_read_array;
    __typeof__(sd_bus_message_enter_container) *message_enter_container;
    __typeof__(sd_bus_message_exit_container) *message_exit_container;
    __typeof__(sd_bus_set_fd) *set_fd;
    __typeof__(sd_bus_unref) *unref;
    __typeof__(sd_bus_message_new_signal) *message_new_signal;
    __typeof__(sd_bus_message_new_method_return) *message_new_method_return;
    __typeof__(sd_bus_message_seal) *message_seal;
} sd;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];
static const char *failed = NULL;

static const char *const names[] = {"libsystemd.so.0"};

static const struct cloader_library library = {
    .name = "libsystemd",
    .sonames = names,
    .soname_count = sizeof names / sizeof names[0],
    .when_missing = "install it (Debian: apt install libsystemd0)",
    .when_incomplete = ": install the one of systemd 241 or later",
};

static const struct cloader_symbol symbols[] = {
    {"sd_bus_new", (void **)&sd.new_bus},
    {"sd_bus_set_address", (void **)&sd.set_address},
    {"sd_bus_set_bus_client", (void **)&sd.set_bus_client},
    {"sd_bus_set_method_call_timeout", (void **)&sd.set_method_call_timeout},
    {"sd_bus_start", (void **)&sd.start},
    {"sd_bus_close_unref", (void **)&sd.close_unref},
    {"sd_bus_is_open", (void **)&sd.is_open},
    {"sd_bus_is_ready", (void **)&sd.is_ready},
    {"sd_bus_get_fd", (void **)&sd.get_fd},
    {"sd_bus_get_events", (void **)&sd.get_events},
    {"sd_bus_get_timeout", (void **)&sd.get_timeout},
    {"sd_bus_process", (void **)&sd.process},
    {"sd_bus_wait", (void **)&sd.wait},
    {"sd_bus_call", (void **)&sd.call},
    {"sd_bus_match_signal", (void **)&sd.match_signal},
    {"sd_bus_slot_unref", (void **)&sd.slot_unref},
    {"sd_bus_error_free", (void **)&sd.error_free},
    {"sd_bus_message_new_method_call", (void **)&sd.message_new_method_call},
    {"sd_bus_message_unref", (void **)&sd.message_unref},
    {"sd_bus_message_get_member", (void **)&sd.message_get_member},
    {"sd_bus_message_get_sender", (void **)&sd.message_get_sender},
    {"sd_bus_message_append_basic", (void **)&sd.message_append_basic},
    {"sd_bus_message_open_container", (void **)&sd.message_open_container},
    {"sd_bus_message_close_container", (void **)&sd.message_close_container},
    {"sd_bus_message_read_basic", (void **)&sd.message_read_basic},
    {"sd_bus_message_append_array", (void **)&sd.message_append_array},
    {"sd_bus_message_read_array", (void **)&sd.message_read_array},
    {"sd_bus_message_enter_container", (void **)&sd.message_enter_container},
    {"sd_bus_message_exit_container", (void **)&sd.message_exit_container},
    {"sd_bus_set_fd", (void **)&sd.set_fd},
    {"sd_bus_unref", (void **)&sd.unref},
    {"sd_bus_message_new_signal", (void **)&sd.message_new_signal},
    {"sd_bus_message_new_method_return", (void **)&sd.message_new_method_return},
    {"sd_bus_message_seal", (void **)&sd.message_seal},
};

static void load(void) {
    if (!cloader_load(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure)) failed = failure;
}

const char *csdbus_load_failure(void) {
    pthread_once(&loaded, load);
    return failed;
}

int csd_bus_new(sd_bus **bus) { return sd.new_bus(bus); }
int csd_bus_set_address(sd_bus *bus, const char *address) { return sd.set_address(bus, address); }
int csd_bus_set_bus_client(sd_bus *bus, int client) { return sd.set_bus_client(bus, client); }
int csd_bus_set_method_call_timeout(sd_bus *bus, uint64_t usec) { return sd.set_method_call_timeout(bus, usec); }
int csd_bus_start(sd_bus *bus) { return sd.start(bus); }
sd_bus *csd_bus_close_unref(sd_bus *bus) { return sd.close_unref(bus); }
int csd_bus_is_open(sd_bus *bus) { return sd.is_open(bus); }
int csd_bus_is_ready(sd_bus *bus) { return sd.is_ready(bus); }
int csd_bus_get_fd(sd_bus *bus) { return sd.get_fd(bus); }
int csd_bus_get_events(sd_bus *bus) { return sd.get_events(bus); }
int csd_bus_get_timeout(sd_bus *bus, uint64_t *usec) { return sd.get_timeout(bus, usec); }
int csd_bus_process(sd_bus *bus, sd_bus_message **message) { return sd.process(bus, message); }
int csd_bus_wait(sd_bus *bus, uint64_t usec) { return sd.wait(bus, usec); }
int csd_bus_call(sd_bus *bus, sd_bus_message *message, uint64_t usec, sd_bus_error *error, sd_bus_message **reply) {
    return sd.call(bus, message, usec, error, reply);
}
int csd_bus_match_signal(sd_bus *bus, sd_bus_slot **slot, const char *sender, const char *path, const char *interface,
                         const char *member, sd_bus_message_handler_t callback, void *userdata) {
    return sd.match_signal(bus, slot, sender, path, interface, member, callback, userdata);
}
sd_bus_slot *csd_bus_slot_unref(sd_bus_slot *slot) { return sd.slot_unref(slot); }
void csd_bus_error_free(sd_bus_error *error) { sd.error_free(error); }

int csd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **message, const char *destination, const char *path,
                                    const char *interface, const char *member) {
    return sd.message_new_method_call(bus, message, destination, path, interface, member);
}
sd_bus_message *csd_bus_message_unref(sd_bus_message *message) { return sd.message_unref(message); }
const char *csd_bus_message_get_member(sd_bus_message *message) { return sd.message_get_member(message); }
const char *csd_bus_message_get_sender(sd_bus_message *message) { return sd.message_get_sender(message); }
int csd_bus_message_append_basic(sd_bus_message *message, char type, const void *value) {
    return sd.message_append_basic(message, type, value);
}
int csd_bus_message_open_container(sd_bus_message *message, char type, const char *contents) {
    return sd.message_open_container(message, type, contents);
}
int csd_bus_message_close_container(sd_bus_message *message) { return sd.message_close_container(message); }
int csd_bus_message_read_basic(sd_bus_message *message, char type, void *value) { return sd.message_read_basic(message, type, value); }
int csd_bus_message_append_array(sd_bus_message *message, char type, const void *pointer, size_t size) {
    return sd.message_append_array(message, type, pointer, size);
}
int csd_bus_message_read_array(sd_bus_message *message, char type, const void **pointer, size_t *size) {
    return sd.message_read_array(message, type, pointer, size);
}
int csd_bus_message_enter_container(sd_bus_message *message, char type, const char *contents) {
    return sd.message_enter_container(message, type, contents);
}
int csd_bus_message_exit_container(sd_bus_message *message) { return sd.message_exit_container(message); }

int csd_bus_set_fd(sd_bus *bus, int input, int output) { return sd.set_fd(bus, input, output); }
sd_bus *csd_bus_unref(sd_bus *bus) { return sd.unref(bus); }
int csd_bus_message_new_signal(sd_bus *bus, sd_bus_message **message, const char *path, const char *interface, const char *member) {
    return sd.message_new_signal(bus, message, path, interface, member);
}
int csd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **message) {
    return sd.message_new_method_return(call, message);
}
int csd_bus_message_seal(sd_bus_message *message, uint64_t cookie, uint64_t timeout_usec) {
    return sd.message_seal(message, cookie, timeout_usec);
}
