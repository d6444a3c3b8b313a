package dev.baton.spring.boot;

import dev.baton.BatchJobHandler;
import dev.baton.Baton;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.JobHandler;
import java.util.List;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;

/**
 * Registers every {@link JobHandler} and {@link BatchJobHandler} bean for its args type, read from
 * the bean's declared type: a class implementing {@code JobHandler<SendEmail>}, or a {@code @Bean}
 * method declared to return {@code JobHandler<SendEmail>} (the same for {@code BatchJobHandler}, in
 * batches of up to {@link Baton.Builder#DEFAULT_MAX_BATCH}; another maximum is a {@link
 * BatonBuilderCustomizer}'s to register).
 */
final class HandlerBeans {
  private final ConfigurableListableBeanFactory beanFactory;
  private final List<String> names;
  private final List<String> batchNames;

  HandlerBeans(ConfigurableListableBeanFactory beanFactory) {
    this.beanFactory = beanFactory;
    this.names = List.of(beanFactory.getBeanNamesForType(JobHandler.class, true, false));
    this.batchNames = List.of(beanFactory.getBeanNamesForType(BatchJobHandler.class, true, false));
  }

  boolean isEmpty() {
    return names.isEmpty() && batchNames.isEmpty();
  }

  /**
   * Registers each handler bean with {@code builder}.
   *
   * @throws InvalidConfigException if a bean's args type cannot be resolved
   */
  void registerWith(Baton.Builder builder) {
    for (String name : names) {
      JobHandler<?> handler = beanFactory.getBean(name, JobHandler.class);
      register(builder, argsType(name, handler, JobHandler.class), handler);
    }
    for (String name : batchNames) {
      BatchJobHandler<?> handler = beanFactory.getBean(name, BatchJobHandler.class);
      registerBatch(builder, argsType(name, handler, BatchJobHandler.class), handler);
    }
  }

  private Class<? extends JobArgs> argsType(String name, Object handler, Class<?> api) {
    ResolvableType declared = ResolvableType.NONE;
    if (beanFactory.containsBeanDefinition(name)) {
      declared = beanFactory.getMergedBeanDefinition(name).getResolvableType();
    }
    Class<?> type = argsOf(declared, api);
    if (type == null) {
      type = argsOf(ResolvableType.forClass(AopUtils.getTargetClass(handler)), api);
    }
    if (type == null || type == JobArgs.class || !JobArgs.class.isAssignableFrom(type)) {
      String simple = api.getSimpleName();
      throw new InvalidConfigException(
          simple + " bean \"" + name + "\"",
          "a handler whose args type can be resolved: a class implementing "
              + simple
              + "<SomeArgs>, or a @Bean method declared to return "
              + simple
              + "<SomeArgs>, SomeArgs a JobArgs class; or register it with a"
              + " BatonBuilderCustomizer",
          declared == ResolvableType.NONE ? handler.getClass().getName() : declared.toString());
    }
    return type.asSubclass(JobArgs.class);
  }

  private static Class<?> argsOf(ResolvableType type, Class<?> api) {
    if (type == ResolvableType.NONE) {
      return null;
    }
    return type.as(api).getGeneric(0).resolve();
  }

  @SuppressWarnings("unchecked")
  private static <A extends JobArgs> void register(
      Baton.Builder builder, Class<A> argsType, JobHandler<?> handler) {
    builder.handler(argsType, (JobHandler<A>) handler);
  }

  @SuppressWarnings("unchecked")
  private static <A extends JobArgs> void registerBatch(
      Baton.Builder builder, Class<A> argsType, BatchJobHandler<?> handler) {
    builder.batchHandler(argsType, (BatchJobHandler<A>) handler);
  }
}
