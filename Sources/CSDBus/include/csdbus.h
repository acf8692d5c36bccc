#ifndef CSDBUS_H
#define CSDBUS_H
/*
 * sd-bus (libsystemd), loaded with dlopen by the first command that talks to the session bus
 * instead of linked: only `--notify` needs it, and a command without it never pays for the
 * library and the eight it pulls in. Only the types come from sd-bus.h; every call goes
 * through the functions below, each the sd-bus function of the same name without `c`.
 */
#include <systemd/sd-bus.h>

/* Loads libsystemd once, on the first call; NULL when it is there, else why not, in a
   sentence. Every other function here may be called only after this returned NULL. */
const char *csdbus_load_failure(void);

int csd_bus_new(sd_bus **bus);
int csd_bus_set_address(sd_bus *bus, const char *address);
int csd_bus_set_bus_client(sd_bus *bus, int client);
int csd_bus_set_method_call_timeout(sd_bus *bus, uint64_t usec);
int csd_bus_start(sd_bus *bus);
sd_bus *csd_bus_close_unref(sd_bus *bus);
int csd_bus_is_open(sd_bus *bus);
int csd_bus_is_ready(sd_bus *bus);
int csd_bus_get_fd(sd_bus *bus);
int csd_bus_get_events(sd_bus *bus);
int csd_bus_get_timeout(sd_bus *bus, uint64_t *usec);
int csd_bus_process(sd_bus *bus, sd_bus_message **message);
int csd_bus_wait(sd_bus *bus, uint64_t usec);
int csd_bus_call(sd_bus *bus, sd_bus_message *message, uint64_t usec, sd_bus_error *error, sd_bus_message **reply);
int csd_bus_match_signal(sd_bus *bus, sd_bus_slot **slot, const char *sender, const char *path, const char *interface,
                         const char *member, sd_bus_message_handler_t callback, void *userdata);
sd_bus_slot *csd_bus_slot_unref(sd_bus_slot *slot);
void csd_bus_error_free(sd_bus_error *error);

int csd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **message, const char *destination, const char *path,
                                    const char *interface, const char *member);
sd_bus_message *csd_bus_message_unref(sd_bus_message *message);
const char *csd_bus_message_get_member(sd_bus_message *message);
const char *csd_bus_message_get_sender(sd_bus_message *message);
int csd_bus_message_append_basic(sd_bus_message *message, char type, const void *value);
int csd_bus_message_open_container(sd_bus_message *message, char type, const char *contents);
int csd_bus_message_close_container(sd_bus_message *message);
int csd_bus_message_read_basic(sd_bus_message *message, char type, void *value);
int csd_bus_message_append_array(sd_bus_message *message, char type, const void *pointer, size_t size);
int csd_bus_message_read_array(sd_bus_message *message, char type, const void **pointer, size_t *size);
int csd_bus_message_enter_container(sd_bus_message *message, char type, const char *contents);
int csd_bus_message_exit_container(sd_bus_message *message);

/* A message made and sealed here, as a peer's would reach a reader, on a bus that is never
   connected (PeerMessage: the fuzz target and the tests). */
int csd_bus_set_fd(sd_bus *bus, int input, int output);
sd_bus *csd_bus_unref(sd_bus *bus);
int csd_bus_message_new_signal(sd_bus *bus, sd_bus_message **message, const char *path, const char *interface, const char *member);
int csd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **message);
int csd_bus_message_seal(sd_bus_message *message, uint64_t cookie, uint64_t timeout_usec);
#endif
