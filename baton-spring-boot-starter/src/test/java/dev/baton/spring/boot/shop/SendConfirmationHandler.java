package dev.baton.spring.boot.shop;

import dev.baton.JobContext;
import dev.baton.JobHandler;
import org.springframework.stereotype.Component;

/** Sends an order's confirmation (here: records it). */
@Component
public class SendConfirmationHandler implements JobHandler<SendConfirmation> {
  private final ShopRecord record;

  SendConfirmationHandler(ShopRecord record) {
    this.record = record;
  }

  @Override
  public void work(JobContext context, SendConfirmation args) {
    record.confirmed(args.customer());
  }
}
