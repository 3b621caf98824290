#pragma once

#include "prompts.h"

#include <optional>

namespace ptwb {

class SshCancel;

// How the worker thread asks SshPrompts without blocking on anyone: the request goes out with a
// fresh id, the answer comes back queued to this thread, and meanwhile a local event loop keeps
// the thread handling its events. A cancel (SshCancel::request(), or the thread told to quit)
// ends the wait at once and withdraws the question (SshPrompts::cancel). A synchronous
// implementation's answer is taken as it comes, without a loop.
namespace SshPromptWait {

// The answer; nullopt when cancelled. `cancel` may be null (nothing but the thread quitting
// cancels then).
std::optional<SshPromptAnswer> ask(SshPrompts &prompts, SshPromptRequest request,
                                   SshCancel *cancel);

}  // namespace SshPromptWait

}  // namespace ptwb
