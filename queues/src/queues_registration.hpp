#pragma once

// Registration entry points of the queues module's op families.
namespace af::detail {

void register_queue_ops_and_kernels();   // FIFOQueueV2, QueueEnqueueV2, QueueDequeueManyV2, ...
void register_reader_ops_and_kernels();  // TextLineReaderV2, ReaderReadV2, ...
void register_record_input();            // RecordInput (record_input.cpp)

}  // namespace af::detail
